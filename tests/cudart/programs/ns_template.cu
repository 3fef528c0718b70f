// ns_template: kernels in namespaces and templates are stored under their
// demangled device function names, whether launched with <<<>>> or
// through cudaLaunchKernel.
#include <cuda_runtime.h>

#include "prog.h"

namespace ns
{
template <typename T> __global__ void scale(T *p, T a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p[i] *= a;
}

namespace detail
{
__global__ void fill(float *p, float v, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p[i] = v;
}
} // namespace detail
} // namespace ns

int main()
{
    int n = 1000;
    float *f = NULL;
    double *g64 = NULL;
    SC_OK(cudaMalloc((void **)&f, n * sizeof(float)));
    SC_OK(cudaMalloc((void **)&g64, n * sizeof(double)));
    cudaStream_t s;
    SC_OK(cudaStreamCreate(&s));
    float v = 1.5f, a = 2.0f;
    double a64 = 0.5;

    SC_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    ns::detail::fill<<<4, 250, 0, s>>>(f, v, n); /* node 0 */
    SC_OK(cudaGetLastError());
    ns::scale<float><<<dim3(4, 1, 1), dim3(250, 1, 1), 0, s>>>(f, a, n); /* node 1 */
    SC_OK(cudaGetLastError());
    void *args[] = {&g64, &a64, &n};
    SC_OK(cudaLaunchKernel((const void *)ns::scale<double>, dim3(8, 1, 1), dim3(125, 1, 1), args, 0,
                           s)); /* node 2 */
    cudaGraph_t g = NULL;
    SC_OK(cudaStreamEndCapture(s, &g));
    SC_OK(cudaGraphDestroy(g));

    SC_OK(cudaStreamDestroy(s));
    SC_OK(cudaFree(f));
    SC_OK(cudaFree(g64));
    return 0;
}
