// conditional: see conditional.c, which nvcc compiles as CUDA C++ here.
#include "conditional.c"
