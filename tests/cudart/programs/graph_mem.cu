// graph_mem: see graph_mem.c, which nvcc compiles as CUDA C++ here.
#include "graph_mem.c"
