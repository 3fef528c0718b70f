/* arrays: CUDA arrays with host memory behind them.  A capture copies a
 * host image into a 2-D array, the array into a second one with
 * cudaMemcpy3DAsync (positions in elements) and that one back to the host;
 * a graph built by hand reads one row of a mipmapped array's level through
 * a memcpy node.  Both are launched and their copies checked.  The CUDA
 * form (arrays.cu) is this file compiled by nvcc. */
#ifdef __CUDACC__
#include <cuda_runtime.h>
#else
#include "sc_cudart.h"
#endif

#include "prog.h"

enum { W = 32, H = 16 }; /* uchar4 elements: 4 bytes */

int main(void)
{
    static unsigned char img[H][W * 4], back[H][W * 4];
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W * 4; x++)
            img[y][x] = (unsigned char)(y * 7 + x);
    struct cudaChannelFormatDesc d =
        cudaCreateChannelDesc(8, 8, 8, 8, cudaChannelFormatKindUnsigned);
    cudaArray_t a, b;
    SC_OK(cudaMallocArray(&a, &d, W, H, 0));
    SC_OK(cudaMallocArray(&b, &d, W, H, cudaArraySurfaceLoadStore));
    cudaStream_t s;
    SC_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

    SC_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    SC_OK(cudaMemcpy2DToArrayAsync(a, 0, 0, img, W * 4, W * 4, H, cudaMemcpyHostToDevice, s));
    struct cudaMemcpy3DParms p;
    memset(&p, 0, sizeof(p));
    p.srcArray = a;
    p.dstArray = b;
    p.extent = make_cudaExtent(W, H, 1);
    p.kind = cudaMemcpyDeviceToDevice;
    SC_OK(cudaMemcpy3DAsync(&p, s));
    SC_OK(cudaMemcpy2DFromArrayAsync(back, W * 4, b, 0, 0, W * 4, H, cudaMemcpyDefault, s));
    cudaGraph_t g;
    SC_OK(cudaStreamEndCapture(s, &g));
    cudaGraphExec_t x;
    SC_OK(cudaGraphInstantiate(&x, g, 0));
    SC_OK(cudaGraphLaunch(x, s));
    SC_OK(cudaStreamSynchronize(s));
    SC_CHECK(memcmp(img, back, sizeof(img)) == 0);

    /* Level 1 of a mipmapped array is W/2 x H/2; its row 3 to the host. */
    cudaMipmappedArray_t m;
    SC_OK(cudaMallocMipmappedArray(&m, &d, make_cudaExtent(W, H, 0), 3, 0));
    cudaArray_t l1;
    SC_OK(cudaGetMipmappedArrayLevel(&l1, m, 1));
    SC_OK(cudaMemcpy2DToArray(l1, 0, 3, img[5], W * 4, W * 2, 1, cudaMemcpyHostToDevice));
    unsigned char row[W * 2];
    memset(row, 0, sizeof(row));
    cudaGraph_t h;
    cudaGraphNode_t n;
    SC_OK(cudaGraphCreate(&h, 0));
    memset(&p, 0, sizeof(p));
    p.srcArray = l1;
    p.srcPos = make_cudaPos(0, 3, 0);
    p.dstPtr = make_cudaPitchedPtr(row, sizeof(row), W / 2, 1);
    p.extent = make_cudaExtent(W / 2, 1, 1);
    p.kind = cudaMemcpyDeviceToHost;
    SC_OK(cudaGraphAddMemcpyNode(&n, h, NULL, 0, &p));
    cudaGraphExec_t y;
    SC_OK(cudaGraphInstantiate(&y, h, 0));
    SC_OK(cudaGraphLaunch(y, s));
    SC_OK(cudaStreamSynchronize(s));
    SC_CHECK(memcmp(row, img[5], sizeof(row)) == 0);

    SC_OK(cudaGraphExecDestroy(y));
    SC_OK(cudaGraphDestroy(h));
    SC_OK(cudaGraphExecDestroy(x));
    SC_OK(cudaGraphDestroy(g));
    SC_OK(cudaFreeMipmappedArray(m));
    SC_OK(cudaFreeArray(b));
    SC_OK(cudaFreeArray(a));
    SC_OK(cudaStreamDestroy(s));
    return 0;
}
