/*
 * rt_entry.c - kernel handles, and the driver's entry points as a runtime
 * that has no driver behind it answers for them: every symbol is one the
 * driver does not provide, which the runtime reports as success with a
 * NULL function, so a program that probes for an optional driver feature
 * takes its fallback instead of failing.
 */
#include <stdint.h>

#include "abi_array.h"
#include "rt_int.h"

/* Launches take the host stub itself as the kernel (rt_launch.c). */
SC_RT_EXPORT cudaError_t cudaGetKernel(cudaKernel_t *kernelPtr, const void *entryFuncAddr)
{
    SC_RT_ENTER();
    if (!kernelPtr)
        SC_RT_RETURN(cudaErrorInvalidValue);
    if (!entryFuncAddr)
        SC_RT_RETURN(cudaErrorInvalidDeviceFunction);
    *kernelPtr = (cudaKernel_t)(uintptr_t)entryFuncAddr;
    SC_RT_RETURN(cudaSuccess);
}

SC_RT_EXPORT cudaError_t cudaGetFuncBySymbol(cudaFunction_t *functionPtr, const void *symbolPtr)
{
    SC_RT_ENTER();
    if (!functionPtr)
        SC_RT_RETURN(cudaErrorInvalidValue);
    if (!symbolPtr)
        SC_RT_RETURN(cudaErrorInvalidDeviceFunction);
    *functionPtr = (cudaFunction_t)(uintptr_t)symbolPtr;
    SC_RT_RETURN(cudaSuccess);
}

static cudaError_t no_driver(const char *symbol, void **funcPtr, unsigned long long flags,
                             enum cudaDriverEntryPointQueryResult *driverStatus)
{
    if (!symbol || !funcPtr || flags > cudaEnablePerThreadDefaultStream)
        return cudaErrorInvalidValue;
    *funcPtr = NULL;
    if (driverStatus)
        *driverStatus = cudaDriverEntryPointSymbolNotFound;
    return cudaSuccess;
}

SC_RT_EXPORT cudaError_t cudaGetDriverEntryPoint(const char *symbol, void **funcPtr,
                                                 unsigned long long flags,
                                                 enum cudaDriverEntryPointQueryResult *driverStatus)
{
    SC_RT_ENTER();
    SC_RT_RETURN(no_driver(symbol, funcPtr, flags, driverStatus));
}

SC_RT_EXPORT cudaError_t
cudaGetDriverEntryPoint_ptsz(const char *symbol, void **funcPtr, unsigned long long flags,
                             enum cudaDriverEntryPointQueryResult *driverStatus)
{
    SC_RT_ENTER();
    SC_RT_RETURN(no_driver(symbol, funcPtr, flags, driverStatus));
}

SC_RT_EXPORT cudaError_t cudaGetDriverEntryPointByVersion(
    const char *symbol, void **funcPtr, unsigned int cudaVersion, unsigned long long flags,
    enum cudaDriverEntryPointQueryResult *driverStatus)
{
    SC_RT_ENTER();
    (void)cudaVersion;
    SC_RT_RETURN(no_driver(symbol, funcPtr, flags, driverStatus));
}

SC_RT_EXPORT cudaError_t cudaGetDriverEntryPointByVersion_ptsz(
    const char *symbol, void **funcPtr, unsigned int cudaVersion, unsigned long long flags,
    enum cudaDriverEntryPointQueryResult *driverStatus)
{
    SC_RT_ENTER();
    (void)cudaVersion;
    SC_RT_RETURN(no_driver(symbol, funcPtr, flags, driverStatus));
}
