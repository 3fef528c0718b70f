/* The device code a program loads at run time (library.cmake builds it
 * with nvcc -fatbin and -cubin): two kernels and three variables. */
__device__ int counter = 5;
__device__ float table[16];
__managed__ int shared_count = 3;

struct pair {
    int a;
    double b;
};

extern "C" __global__ void bump(int *p, int by)
{
    *p += by + counter + shared_count;
}

__global__ void scale(float *out, int n, double f, char tag, pair p)
{
    if (threadIdx.x < n)
        out[threadIdx.x] *= f + tag + p.a + p.b + table[0];
}
