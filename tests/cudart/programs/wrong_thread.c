/* wrong_thread, the plain C twin of wrong_thread.cu: another thread ends the capture.  Global and
 * thread-local captures refuse it with 908 and are invalidated, so their own thread's end fails
 * with 901; a relaxed capture ends from any thread. */
#include "sc_cudart.h"

#include "kernels_c.h"
#include "prog.h"

SC_KERNEL(tick);
SC_KERNELS({tick, "_Z4tickPi"})

static sc_turns turns = SC_TURNS_INIT;
static cudaStream_t s1;

static void *worker(void *arg)
{
    (void)arg;
    cudaGraph_t g = NULL;
    sc_turn_wait(&turns, 1);
    SC_FAILS(cudaErrorStreamCaptureWrongThread, cudaStreamEndCapture(s1, &g));
    SC_CHECK(g == NULL);
    sc_turn_done(&turns);

    sc_turn_wait(&turns, 3);
    SC_OK(cudaStreamEndCapture(s1, &g)); /* relaxed: any thread */
    SC_CHECK(g != NULL);
    SC_OK(cudaGraphDestroy(g));
    sc_turn_done(&turns);

    sc_turn_wait(&turns, 5);
    SC_FAILS(cudaErrorStreamCaptureWrongThread, cudaStreamEndCapture(s1, &g));
    sc_turn_done(&turns);
    return NULL;
}

int main(void)
{
    int *d = NULL;
    SC_OK(cudaMalloc((void **)&d, 64 * sizeof(int)));
    SC_OK(cudaStreamCreate(&s1));
    pthread_t t;
    SC_CHECK(pthread_create(&t, NULL, worker, NULL) == 0);
    cudaGraph_t g = NULL;
    enum cudaStreamCaptureStatus st;

    sc_turn_wait(&turns, 0);
    SC_OK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal)); /* capture 1 */
    (void)sc_launch(tick, sc_dim3(1, 1, 1), sc_dim3(32, 1, 1), 0, s1, (void *[]){(void *)&d});
    SC_OK(cudaGetLastError());
    sc_turn_done(&turns);

    sc_turn_wait(&turns, 2);
    /* The refused end left the capture running, invalidated. */
    SC_OK(cudaStreamIsCapturing(s1, &st));
    SC_CHECK(st == cudaStreamCaptureStatusInvalidated);
    SC_FAILS(cudaErrorStreamCaptureInvalidated, cudaStreamEndCapture(s1, &g));
    SC_OK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeRelaxed)); /* capture 2 */
    (void)sc_launch(tick, sc_dim3(1, 1, 1), sc_dim3(64, 1, 1), 0, s1, (void *[]){(void *)&d});
    SC_OK(cudaGetLastError());
    sc_turn_done(&turns);

    sc_turn_wait(&turns, 4);
    SC_OK(cudaStreamIsCapturing(s1, &st));
    SC_CHECK(st == cudaStreamCaptureStatusNone);
    SC_OK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeThreadLocal)); /* capture 3 */
    (void)sc_launch(tick, sc_dim3(2, 1, 1), sc_dim3(32, 1, 1), 0, s1, (void *[]){(void *)&d});
    SC_OK(cudaGetLastError());
    sc_turn_done(&turns);

    sc_turn_wait(&turns, 6);
    SC_FAILS(cudaErrorStreamCaptureInvalidated, cudaStreamEndCapture(s1, &g));
    SC_CHECK(g == NULL);
    SC_CHECK(pthread_join(t, NULL) == 0);

    SC_OK(cudaStreamDestroy(s1));
    SC_OK(cudaFree(d));
    return 0;
}
