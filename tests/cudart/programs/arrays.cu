// arrays: see arrays.c, which nvcc compiles as CUDA C++ here.
#include "arrays.c"
