/* killed, the plain C twin of killed.cu: one capture ended (and stored, with
 * STREAMCAP_SYNC_END=1), then a second one begun, and the process kills
 * itself with SIGKILL mid-capture: it writes no exit report and never closes
 * its session. */
#include <signal.h>

#include "sc_cudart.h"

#include "kernels_c.h"
#include "prog.h"

SC_KERNEL(step);
SC_KERNELS({step, "_Z4stepPfi"})

int main(void)
{
    const int n = 1024;
    float *d = NULL;
    SC_OK(cudaMalloc((void **)&d, n * sizeof(float)));
    cudaStream_t s;
    SC_OK(cudaStreamCreate(&s));
    void *args[] = {(void *)&d, (void *)&n};
    SC_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    SC_OK(sc_launch(step, sc_dim3(4, 1, 1), sc_dim3(256, 1, 1), 0, s, args));
    SC_OK(sc_launch(step, sc_dim3(4, 1, 1), sc_dim3(256, 1, 1), 0, s, args));
    cudaGraph_t g = NULL;
    SC_OK(cudaStreamEndCapture(s, &g));
    SC_CHECK(g != NULL);

    SC_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    SC_OK(sc_launch(step, sc_dim3(4, 1, 1), sc_dim3(256, 1, 1), 0, s, args));
    fflush(NULL);
    raise(SIGKILL);
    return 1;
}
