/* malloc_modes, the plain C twin of malloc_modes.cu: cudaMalloc and cudaFree from two host threads
 * against captures of each mode, with each thread's capture mode switched by
 * cudaThreadExchangeStreamCaptureMode (docs/cuda-semantics.md §4.8).  The
 * threads take turns, so the captures are numbered the same on every run. */
#include "sc_cudart.h"

#include "kernels_c.h"
#include "prog.h"

SC_KERNEL(tick);
SC_KERNELS({tick, "_Z4tickPi"})

static sc_turns turns = SC_TURNS_INIT;
static cudaStream_t sa, sb;
static int *d;

static void exchange(enum cudaStreamCaptureMode to, enum cudaStreamCaptureMode was)
{
    enum cudaStreamCaptureMode m = to;
    SC_OK(cudaThreadExchangeStreamCaptureMode(&m));
    SC_CHECK(m == was);
}

static void malloc_free_ok(void)
{
    void *p = NULL;
    SC_OK(cudaMalloc(&p, 64));
    SC_OK(cudaFree(p));
}

static void *worker(void *arg)
{
    (void)arg;
    void *p = NULL;
    sc_turn_wait(&turns, 1);
    /* Capture 1 is the other thread's, begun global: this thread's global
     * mode breaks it. */
    SC_FAILS(cudaErrorStreamCaptureUnsupported, cudaMalloc(&p, 64));
    sc_turn_done(&turns);

    sc_turn_wait(&turns, 3);
    /* Capture 2 is thread_local: another thread's allocation is safe. */
    malloc_free_ok();
    sc_turn_done(&turns);

    sc_turn_wait(&turns, 5);
    /* Capture 3 is global, but this thread is relaxed, then thread_local
     * with no capture of its own. */
    exchange(cudaStreamCaptureModeRelaxed, cudaStreamCaptureModeGlobal);
    malloc_free_ok();
    exchange(cudaStreamCaptureModeThreadLocal, cudaStreamCaptureModeRelaxed);
    malloc_free_ok();
    exchange(cudaStreamCaptureModeGlobal, cudaStreamCaptureModeThreadLocal);
    sc_turn_done(&turns);

    sc_turn_wait(&turns, 7);
    /* Capture 4 was begun relaxed: nothing breaks it. */
    malloc_free_ok();
    sc_turn_done(&turns);

    sc_turn_wait(&turns, 9);
    SC_OK(cudaStreamBeginCapture(sb, cudaStreamCaptureModeGlobal)); /* capture 6 */
    (void)sc_launch(tick, sc_dim3(1, 1, 1), sc_dim3(32, 1, 1), 0, sb, (void *[]){(void *)&d});
    SC_OK(cudaGetLastError());
    sc_turn_done(&turns);

    sc_turn_wait(&turns, 11);
    /* The other thread's thread_local allocation broke only its own
     * capture 5. */
    (void)sc_launch(tick, sc_dim3(1, 1, 1), sc_dim3(64, 1, 1), 0, sb, (void *[]){(void *)&d});
    SC_OK(cudaGetLastError());
    enum cudaStreamCaptureStatus st;
    SC_OK(cudaStreamIsCapturing(sb, &st));
    SC_CHECK(st == cudaStreamCaptureStatusActive);
    cudaGraph_t g = NULL;
    SC_OK(cudaStreamEndCapture(sb, &g));
    SC_OK(cudaGraphDestroy(g));
    sc_turn_done(&turns);
    return NULL;
}

int main(void)
{
    SC_OK(cudaMalloc((void **)&d, 256 * sizeof(int)));
    SC_OK(cudaStreamCreate(&sa));
    SC_OK(cudaStreamCreate(&sb));
    pthread_t t;
    SC_CHECK(pthread_create(&t, NULL, worker, NULL) == 0);
    cudaGraph_t g = NULL;
    enum cudaStreamCaptureStatus st;

    sc_turn_wait(&turns, 0);
    SC_OK(cudaStreamBeginCapture(sa, cudaStreamCaptureModeGlobal)); /* capture 1 */
    (void)sc_launch(tick, sc_dim3(1, 1, 1), sc_dim3(32, 1, 1), 0, sa, (void *[]){(void *)&d});
    SC_OK(cudaGetLastError());
    sc_turn_done(&turns);

    sc_turn_wait(&turns, 2);
    SC_OK(cudaStreamIsCapturing(sa, &st));
    SC_CHECK(st == cudaStreamCaptureStatusInvalidated);
    (void)sc_launch(tick, sc_dim3(1, 1, 1), sc_dim3(32, 1, 1), 0, sa, (void *[]){(void *)&d});
    SC_EXPECT(cudaErrorStreamCaptureInvalidated, cudaGetLastError());
    SC_FAILS(cudaErrorStreamCaptureInvalidated, cudaStreamEndCapture(sa, &g));
    SC_CHECK(g == NULL);
    SC_OK(cudaStreamBeginCapture(sa, cudaStreamCaptureModeThreadLocal)); /* capture 2 */
    (void)sc_launch(tick, sc_dim3(1, 1, 1), sc_dim3(32, 1, 1), 0, sa, (void *[]){(void *)&d});
    SC_OK(cudaGetLastError());
    sc_turn_done(&turns);

    sc_turn_wait(&turns, 4);
    SC_OK(cudaStreamEndCapture(sa, &g));
    SC_OK(cudaGraphDestroy(g));
    SC_OK(cudaStreamBeginCapture(sa, cudaStreamCaptureModeGlobal)); /* capture 3 */
    (void)sc_launch(tick, sc_dim3(2, 1, 1), sc_dim3(32, 1, 1), 0, sa, (void *[]){(void *)&d});
    SC_OK(cudaGetLastError());
    sc_turn_done(&turns);

    sc_turn_wait(&turns, 6);
    /* This thread relaxed: its own global capture survives. */
    exchange(cudaStreamCaptureModeRelaxed, cudaStreamCaptureModeGlobal);
    malloc_free_ok();
    exchange(cudaStreamCaptureModeGlobal, cudaStreamCaptureModeRelaxed);
    SC_OK(cudaStreamEndCapture(sa, &g));
    SC_OK(cudaGraphDestroy(g));
    SC_OK(cudaStreamBeginCapture(sa, cudaStreamCaptureModeRelaxed)); /* capture 4 */
    (void)sc_launch(tick, sc_dim3(3, 1, 1), sc_dim3(32, 1, 1), 0, sa, (void *[]){(void *)&d});
    SC_OK(cudaGetLastError());
    /* A relaxed capture is broken by no one, not even its own thread. */
    malloc_free_ok();
    sc_turn_done(&turns);

    sc_turn_wait(&turns, 8);
    SC_OK(cudaStreamEndCapture(sa, &g));
    SC_OK(cudaGraphDestroy(g));
    SC_OK(cudaStreamBeginCapture(sa, cudaStreamCaptureModeGlobal)); /* capture 5 */
    (void)sc_launch(tick, sc_dim3(4, 1, 1), sc_dim3(32, 1, 1), 0, sa, (void *[]){(void *)&d});
    SC_OK(cudaGetLastError());
    sc_turn_done(&turns);

    sc_turn_wait(&turns, 10);
    /* thread_local: this thread's own capture 5 breaks, the other
     * thread's capture 6 does not. */
    exchange(cudaStreamCaptureModeThreadLocal, cudaStreamCaptureModeGlobal);
    void *p = NULL;
    SC_FAILS(cudaErrorStreamCaptureUnsupported, cudaMalloc(&p, 64));
    exchange(cudaStreamCaptureModeGlobal, cudaStreamCaptureModeThreadLocal);
    SC_OK(cudaStreamIsCapturing(sa, &st));
    SC_CHECK(st == cudaStreamCaptureStatusInvalidated);
    sc_turn_done(&turns);

    sc_turn_wait(&turns, 12);
    SC_FAILS(cudaErrorStreamCaptureInvalidated, cudaStreamEndCapture(sa, &g));
    SC_CHECK(pthread_join(t, NULL) == 0);

    SC_OK(cudaStreamDestroy(sa));
    SC_OK(cudaStreamDestroy(sb));
    SC_OK(cudaFree(d));
    return 0;
}
