/*
 * dummy_cudart.c - a libcudart.so.13 that is not the stand-in: the one a
 * program's DT_RPATH finds first in test_client_run_fail.  It answers the
 * one call run_rpath makes and writes no report.
 */
int cudaGetDeviceCount(int *count);

int cudaGetDeviceCount(int *count)
{
    *count = 0;
    return 0;
}
