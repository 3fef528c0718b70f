/*
 * run_rpath.c - a program linked against the CUDA runtime stand-in whose
 * DT_RPATH names a directory holding another libcudart.so.13 (the loader
 * searches DT_RPATH before LD_LIBRARY_PATH), as a binary built with an
 * rpath to the toolkit is.
 */
#include <stdio.h>

#include "sc_cudart.h"

int main(void)
{
    int n = -1;
    cudaError_t rc = cudaGetDeviceCount(&n);
    printf("devices %d, rc %d\n", n, (int)rc);
    return 0;
}
