// child_graph: see child_graph.c, which nvcc compiles as CUDA C++ here.
#include "child_graph.c"
