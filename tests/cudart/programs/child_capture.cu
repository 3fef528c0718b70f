// child_capture: see child_capture.c, which nvcc compiles as CUDA C++ here.
#include "child_capture.c"
