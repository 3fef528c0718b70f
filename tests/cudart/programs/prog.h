/*
 * prog.h - what every scenario program of the suite shares, in its CUDA
 * C++ form (NAME.cu) and its plain C twin (NAME.c): checks of CUDA return
 * codes that end the program with a message and a non-zero status, and
 * turns that put the work of two host threads in one fixed order, so that
 * capture ids and the calls' interleaving are the same on every run.
 *
 * Include it after the CUDA declarations (cuda_runtime.h or sc_cudart.h).
 */
#ifndef SC_PROG_H
#define SC_PROG_H

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/** The call must return `want` (a cudaError_t); exit 1 otherwise. */
#define SC_EXPECT(want, call)                                                                      \
    do {                                                                                           \
        cudaError_t sc_got_ = (call);                                                              \
        cudaError_t sc_want_ = (want);                                                             \
        if (sc_got_ != sc_want_) {                                                                 \
            fprintf(stderr, "%s:%d: %s returned %d (%s), expected %d (%s)\n", __FILE__, __LINE__,  \
                    #call, (int)sc_got_, cudaGetErrorName(sc_got_), (int)sc_want_,                 \
                    cudaGetErrorName(sc_want_));                                                   \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

#define SC_OK(call) SC_EXPECT(cudaSuccess, call)

/** The call must fail with `want`, which is then also the thread's last
 *  error (cudaGetLastError, which clears it), as in CUDA. */
#define SC_FAILS(want, call)                                                                       \
    do {                                                                                           \
        SC_EXPECT(want, call);                                                                     \
        SC_EXPECT(want, cudaGetLastError());                                                       \
    } while (0)

/** A condition the program checks in-process; exit 1 when it is false. */
#define SC_CHECK(cond)                                                                             \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);               \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

/** Turns: thread work numbered 0, 1, 2, ... runs in that order. */
typedef struct sc_turns {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int turn;
} sc_turns;

#define SC_TURNS_INIT                                                                              \
    {                                                                                              \
        PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0                                     \
    }

/** Block until it is turn `n`. */
static inline void sc_turn_wait(sc_turns *t, int n)
{
    pthread_mutex_lock(&t->mu);
    while (t->turn != n)
        pthread_cond_wait(&t->cv, &t->mu);
    pthread_mutex_unlock(&t->mu);
}

/** End the current turn: the next one may run. */
static inline void sc_turn_done(sc_turns *t)
{
    pthread_mutex_lock(&t->mu);
    t->turn++;
    pthread_cond_broadcast(&t->cv);
    pthread_mutex_unlock(&t->mu);
}

#endif
