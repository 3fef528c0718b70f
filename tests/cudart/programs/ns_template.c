/* ns_template, the plain C twin of ns_template.cu: kernels in namespaces
 * and templates are stored under their demangled device function names;
 * this twin registers the mangled names nvcc registers for them. */
#include "sc_cudart.h"

#include "kernels_c.h"
#include "prog.h"

SC_KERNEL(ns_detail_fill);
SC_KERNEL(ns_scale_float);
SC_KERNEL(ns_scale_double);
SC_KERNELS({ns_detail_fill, "_ZN2ns6detail4fillEPffi"},
           {ns_scale_float, "_ZN2ns5scaleIfEEvPT_S1_i"},
           {ns_scale_double, "_ZN2ns5scaleIdEEvPT_S1_i"})

int main(void)
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
    void *fill_args[] = {&f, &v, &n};
    (void)sc_launch(ns_detail_fill, sc_dim3(4, 1, 1), sc_dim3(250, 1, 1), 0, s,
                    fill_args); /* node 0 */
    SC_OK(cudaGetLastError());
    void *scale_args[] = {&f, &a, &n};
    (void)sc_launch(ns_scale_float, sc_dim3(4, 1, 1), sc_dim3(250, 1, 1), 0, s,
                    scale_args); /* node 1 */
    SC_OK(cudaGetLastError());
    void *args[] = {&g64, &a64, &n};
    SC_OK(cudaLaunchKernel(ns_scale_double, sc_dim3(8, 1, 1), sc_dim3(125, 1, 1), args, 0,
                           s)); /* node 2 */
    cudaGraph_t g = NULL;
    SC_OK(cudaStreamEndCapture(s, &g));
    SC_OK(cudaGraphDestroy(g));

    SC_OK(cudaStreamDestroy(s));
    SC_OK(cudaFree(f));
    SC_OK(cudaFree(g64));
    return 0;
}
