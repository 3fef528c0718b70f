/*
 * sc_errors.h - error codes shared by the core library.
 *
 * Every core function returns 0 or one of these negative codes.  The capture
 * errors map one to one onto the messages of docs/semantics.md §8; see
 * sc_error_message() for the exact text.
 *
 * Error spaces.  Each layer has its own range of codes:
 *
 *   core SC_E* (this file)                         -299 ..   -200
 *   store SC_STORE_E* (store/sc_store.h)           -399 ..   -300
 *   client: negated errno values                   -199 ..     -1
 *   client: daemon error replies (SC_CLIENT_E*)           <= -1000
 *   JSON-RPC 2.0 standard codes (proto/sc_rpc.h)  -32768 .. -32000
 *   streamcap JSON-RPC codes (proto/sc_rpc.h)              >= 1000
 *   SQLite result codes (store/sqlite/ only)               >= 0
 *
 * The ranges are disjoint, with one deliberate exception: the client
 * returns the daemon's code 1000 + n as -1000 - n and the JSON-RPC
 * standard codes unchanged, so those lie in both the client's range and
 * the JSON-RPC one.
 *
 * Why: a code is only meaningful in its own space, and results cross
 * layers (core -> store -> daemon -> client).  When the spaces shared
 * numbers (-1 was SC_ENOMEM here, SC_STORE_ENOTFOUND in the store and
 * -EPERM in the client), a code passed on without being mapped went
 * unnoticed and meant something else on the other side.  With disjoint
 * ranges such a code is recognisably foreign, and every mapping checks
 * at compile time that its source and target ranges stay apart.  Names
 * are the interface: nothing may depend on the numeric values, only on
 * the ranges.  This header includes nothing else from the tree, so the
 * other layers check their ranges against SC_E__MIN / SC_E__MAX.
 */
#ifndef SC_ERRORS_H
#define SC_ERRORS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The range reserved for core codes (SC_OK excepted): every SC_E* lies in
 * [SC_E__MIN, SC_E__MAX]. */
#define SC_E__MIN (-299)
#define SC_E__MAX (-200)

/** True when the ranges [amin, amax] and [bmin, bmax] share no value: for
 *  the compile-time checks of the layers that map one space onto another. */
#define SC_RANGES_DISJOINT(amin, amax, bmin, bmax) ((amax) < (bmin) || (bmax) < (amin))

enum sc_error {
    SC_OK = 0,
    SC_ENOMEM = -201,    /* allocation failed; nothing changed */
    SC_EINVAL = -202,    /* bad argument (NULL, enum out of range, wrong state) */
    SC_ENOTFOUND = -203, /* node id not in the graph */
    SC_ELIMIT = -204,    /* id space or name arena exhausted */

    /* The capture errors of docs/semantics.md §8 ("internal graph error: <msg>"). */
    SC_EALREADY = -210,      /* stream <S> is already capturing */
    SC_ENOTCAPTURING = -211, /* stream <S> is not capturing */
    SC_EINVALIDATED = -212,  /* stream <S> capture is invalidated */
    SC_EILLEGAL = -213,      /* capture was invalidated by an illegal operation */
    SC_EPOISONED = -214,     /* capture was invalidated on another stream in the session */
};

/*
 * The CUDA errors of a cuda-mode session (core/sc_cuda.h,
 * docs/cuda-semantics.md §2): one code per CUDA error a capture call can
 * return.  A separate enum, not part of enum sc_error, so that switches
 * over the default mode's codes stay exhaustive; the values lie in the
 * core's range all the same.  sc_cuda_error_number() gives CUDA's number
 * (1, 401, 900..908), sc_cuda_error_name() its name
 * ("cudaErrorStreamCaptureUnjoined") and sc_cuda_error_string() the text
 * cudaGetErrorString() returns.
 */
enum sc_cuda_error {
    SC_ECUDA_INVALID_VALUE = -250,  /* 1 */
    SC_ECUDA_ILLEGAL_STATE = -251,  /* 401 */
    SC_ECUDA_UNSUPPORTED = -260,    /* 900 */
    SC_ECUDA_INVALIDATED = -261,    /* 901 */
    SC_ECUDA_MERGE = -262,          /* 902 */
    SC_ECUDA_UNMATCHED = -263,      /* 903 */
    SC_ECUDA_UNJOINED = -264,       /* 904 */
    SC_ECUDA_ISOLATION = -265,      /* 905 */
    SC_ECUDA_IMPLICIT = -266,       /* 906 */
    SC_ECUDA_CAPTURED_EVENT = -267, /* 907 */
    SC_ECUDA_WRONG_THREAD = -268,   /* 908 */
};

/** CUDA's number for a cuda error code (1, 401, 900..908); 0 for any other code. */
int sc_cuda_error_number(int err);
/** CUDA's name ("cudaErrorStreamCaptureUnjoined"); NULL for any other code. */
const char *sc_cuda_error_name(int err);
/** CUDA's message ("capturing stream has unjoined work"); NULL for any other code. */
const char *sc_cuda_error_string(int err);
/** The cuda error code of CUDA's number (0 -> SC_OK); SC_EINVAL when it is none of them. */
int sc_cuda_error_from_number(int number);

/** The prefix the reference implementation puts before every capture error. */
#define SC_ERROR_PREFIX "internal graph error: "

/**
 * Write the message for `err` raised on `stream` into buf (snprintf rules:
 * always NUL-terminated when cap > 0, returns the length it wanted).  The
 * text carries no SC_ERROR_PREFIX, e.g. "stream S3 is not capturing" or
 * "stream S:default is already capturing".  Non-capture codes get a short
 * description ("out of memory", ...).
 */
int sc_error_message(int err, uint32_t stream, char *buf, size_t cap);

/** Static short name of a code: "ENOMEM", "EALREADY", ...; "EUNKNOWN" otherwise.
 *  The CUDA codes below are named by sc_cuda_error_name() only, so that the
 *  list of enum sc_error codes (and the mappings checked against it) stays
 *  that of the default mode. */
const char *sc_error_name(int err);

/** Print a stream as docs/semantics.md §1 does: "S:default" for 0, "S<n>" otherwise. */
int sc_stream_format(uint32_t stream, char *buf, size_t cap);
/** Print an event as docs/semantics.md §1 does: "E<n>" (snprintf rules as above). */
int sc_event_format(uint32_t event, char *buf, size_t cap);

#ifdef __cplusplus
}
#endif
#endif
