// Device layer: the CUDA driver API, opened with dlopen at run time.
//
// Internal API of the runtime for Kiln's own libraries and tools (link
// KilnRuntimeInternal): not installed, not part of the C API, no stable ABI.
//
// Nothing links against libcuda: the driver is loaded on first use, so every
// Kiln tool starts (and loads and verifies engines) on a machine without a GPU,
// and the first call that needs one gets a KILN_NO_DEVICE status instead.
// <cuda.h> is used for types and for the versioned ABI names of functions
// (cuMemAlloc is the macro for cuMemAlloc_v2, and that is the name looked up).
#ifndef KILN_INTERNAL_DEVICE_H
#define KILN_INTERNAL_DEVICE_H

#include "kiln/kiln.h"

#include <cuda.h>

#include <string>
#include <vector>

namespace kiln::rt::cuda {

// The driver functions the runtime calls; every one must be present.
#define KILN_CUDA_REQUIRED_FUNCTIONS(X)                                        \
  X(cuInit)                                                                    \
  X(cuDriverGetVersion)                                                        \
  X(cuGetErrorName)                                                            \
  X(cuGetErrorString)                                                          \
  X(cuDeviceGetCount)                                                          \
  X(cuDeviceGet)                                                               \
  X(cuDeviceGetAttribute)                                                      \
  X(cuDeviceGetName)                                                           \
  X(cuDevicePrimaryCtxRetain)                                                  \
  X(cuDevicePrimaryCtxRelease)                                                 \
  X(cuCtxPushCurrent)                                                          \
  X(cuCtxPopCurrent)                                                           \
  X(cuModuleLoadDataEx)                                                        \
  X(cuModuleUnload)                                                            \
  X(cuModuleGetFunction)                                                       \
  X(cuFuncSetAttribute)                                                        \
  X(cuMemAlloc)                                                                \
  X(cuMemFree)                                                                 \
  X(cuMemGetInfo)                                                              \
  X(cuMemcpyHtoD)                                                              \
  X(cuMemcpyHtoDAsync)                                                         \
  X(cuMemcpyDtoHAsync)                                                         \
  X(cuPointerGetAttribute)                                                     \
  X(cuLaunchKernel)                                                            \
  X(cuStreamCreate)                                                            \
  X(cuStreamDestroy)                                                           \
  X(cuStreamSynchronize)                                                       \
  X(cuStreamIsCapturing)                                                       \
  X(cuStreamBeginCapture)                                                      \
  X(cuStreamEndCapture)                                                        \
  X(cuGraphInstantiate)                                                        \
  X(cuGraphLaunch)                                                             \
  X(cuGraphDestroy)                                                            \
  X(cuGraphExecDestroy)                                                        \
  X(cuEventCreate)                                                             \
  X(cuEventRecord)                                                             \
  X(cuEventSynchronize)                                                        \
  X(cuEventElapsedTime)                                                        \
  X(cuEventDestroy)

// Functions used when the driver has them (cuFuncGetParamInfo: CUDA 12.4+).
// cuLaunchKernelEx (CUDA 12.0+): programmatic dependent launches.
// cuMemsetD8Async: autotune's L2 flush between timed runs.
// cuTensorMapEncodeTiled (CUDA 12.0+): TMA descriptors of TensorMap arguments.
#define KILN_CUDA_OPTIONAL_FUNCTIONS(X)                                        \
  X(cuFuncGetParamInfo)                                                        \
  X(cuLaunchKernelEx)                                                          \
  X(cuMemsetD8Async)                                                           \
  X(cuTensorMapEncodeTiled)

/// The loaded driver: one function pointer per API function, named as in
/// <cuda.h> (so `driver.cuMemAlloc(...)` reads like a plain driver call).
struct Driver {
  std::string library; ///< what was dlopen'ed
  int version = 0;     ///< cuDriverGetVersion, e.g. 13000
#define KILN_CUDA_MEMBER(name) decltype(&::name) name = nullptr;
  KILN_CUDA_REQUIRED_FUNCTIONS(KILN_CUDA_MEMBER)
  KILN_CUDA_OPTIONAL_FUNCTIONS(KILN_CUDA_MEMBER)
#undef KILN_CUDA_MEMBER
  CUresult initResult = CUDA_SUCCESS; ///< of cuInit(0), called once
};

/// The driver named by $KILN_CUDA_DRIVER_LIBRARY (default "libcuda.so.1"),
/// loaded and initialized once per process and library name. KILN_NO_DEVICE
/// when it cannot be loaded or cuInit finds no GPU.
kiln_status getDriver(const Driver *&driver);

/// "CUDA_ERROR_OUT_OF_MEMORY (out of memory)".
std::string errorText(const Driver &driver, CUresult result);

/// nullptr for CUDA_SUCCESS; otherwise a status "<what>: <call> failed:
/// <error>", with KILN_OUT_OF_MEMORY for allocation failures and
/// KILN_DEVICE_ERROR for the rest.
kiln_status check(const Driver &driver, CUresult result, const char *call,
                  const std::string &what);

/// Makes a context current for the scope and restores the previous one.
class ContextScope {
public:
  ContextScope(const Driver &driver, CUcontext context);
  ~ContextScope();
  ContextScope(const ContextScope &) = delete;
  ContextScope &operator=(const ContextScope &) = delete;
  /// The cuCtxPushCurrent result; check it before doing anything else.
  CUresult result() const { return result_; }

private:
  const Driver &driver_;
  CUresult result_;
};

/// A tiled TMA descriptor as plain data (the engine's fb::TensorMap): dims
/// innermost first, byte strides of dims[1..], box extents, swizzle span in
/// bytes (0, 32, 64, 128); out-of-range elements read as zero.
struct TensorMapDesc {
  kiln_dtype dtype = KILN_DTYPE_F16; ///< f16, bf16 or f32
  std::vector<uint64_t> dims, strides;
  std::vector<uint32_t> box;
  uint32_t swizzle = 0;
};

/// Encodes `desc` over device address `address` into `out`
/// (cuTensorMapEncodeTiled); a status naming `what` when the driver lacks
/// the call or refuses the descriptor.
kiln_status encodeTensorMap(const Driver &driver, const TensorMapDesc &desc,
                            CUdeviceptr address, CUtensorMap &out,
                            const std::string &what);

/// The ordinal of a device; KILN_NO_DEVICE with the count when out of range.
kiln_status getDevice(const Driver &driver, int ordinal, CUdevice &device);

} // namespace kiln::rt::cuda

#endif // KILN_INTERNAL_DEVICE_H
