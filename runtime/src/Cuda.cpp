// Device layer: loads libcuda.so.1 with dlopen and turns CUDA results into
// statuses.
#include "kiln/internal/device.h"

#include "Status.h"

#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <map>
#include <memory>
#include <mutex>

namespace kiln::rt::cuda {
namespace {

constexpr const char *kDefaultLibrary = "libcuda.so.1";

// Stringizes after macro expansion: KILN_CUDA_SYMBOL(cuMemAlloc) is
// "cuMemAlloc_v2", the ABI name <cuda.h> binds cuMemAlloc to.
#define KILN_CUDA_SYMBOL2(name) #name
#define KILN_CUDA_SYMBOL(name) KILN_CUDA_SYMBOL2(name)

kiln_status loadDriver(const std::string &library,
                       std::unique_ptr<Driver> &out) {
  void *handle = ::dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *why = ::dlerror();
    return makeStatus(KILN_NO_DEVICE,
                      "no CUDA driver found (" + library +
                          "): no GPU on this machine" +
                          (why ? std::string(" (dlopen: ") + why + ")" : ""));
  }
  auto driver = std::make_unique<Driver>();
  driver->library = library;
  std::string missing;
#define KILN_CUDA_LOAD(name)                                                   \
  driver->name = reinterpret_cast<decltype(driver->name)>(                     \
      ::dlsym(handle, KILN_CUDA_SYMBOL(name)));                                \
  if (!driver->name)                                                           \
    missing +=                                                                 \
        std::string(missing.empty() ? "" : ", ") + KILN_CUDA_SYMBOL(name);
  KILN_CUDA_REQUIRED_FUNCTIONS(KILN_CUDA_LOAD)
#undef KILN_CUDA_LOAD
#define KILN_CUDA_LOAD_OPTIONAL(name)                                          \
  driver->name = reinterpret_cast<decltype(driver->name)>(                     \
      ::dlsym(handle, KILN_CUDA_SYMBOL(name)));
  KILN_CUDA_OPTIONAL_FUNCTIONS(KILN_CUDA_LOAD_OPTIONAL)
#undef KILN_CUDA_LOAD_OPTIONAL
  if (!missing.empty()) {
    // The handle stays open: closing a half-used driver is never worth it.
    return makeStatus(KILN_NO_DEVICE, "the CUDA driver " + library +
                                          " is too old for Kiln: it lacks " +
                                          missing +
                                          " (install a newer NVIDIA driver)");
  }
  driver->initResult = driver->cuInit(0);
  if (driver->initResult == CUDA_SUCCESS)
    driver->cuDriverGetVersion(&driver->version);
  out = std::move(driver);
  return nullptr;
}

} // namespace

kiln_status getDriver(const Driver *&driver) {
  // Loaded drivers are never unloaded: the map leaks on purpose, so nothing
  // runs during static destruction while other threads may still use CUDA.
  static std::mutex *mutex = new std::mutex;
  static auto *drivers = new std::map<std::string, std::unique_ptr<Driver>>;
  const char *env = std::getenv("KILN_CUDA_DRIVER_LIBRARY");
  std::string library = env && *env ? env : kDefaultLibrary;

  std::lock_guard<std::mutex> lock(*mutex);
  auto it = drivers->find(library);
  if (it == drivers->end()) {
    std::unique_ptr<Driver> loaded;
    // A library that is absent is not remembered: it may be installed later.
    KILN_RETURN_IF_ERROR(loadDriver(library, loaded));
    it = drivers->emplace(library, std::move(loaded)).first;
  }
  const Driver &d = *it->second;
  if (d.initResult != CUDA_SUCCESS) {
    kiln_code code = d.initResult == CUDA_ERROR_NO_DEVICE ||
                             d.initResult == CUDA_ERROR_INVALID_DEVICE
                         ? KILN_NO_DEVICE
                         : KILN_DEVICE_ERROR;
    return makeStatus(
        code,
        "the CUDA driver (" + library +
            ") is installed but cuInit failed: " + errorText(d, d.initResult) +
            (code == KILN_NO_DEVICE ? "; no usable GPU on this machine" : ""));
  }
  driver = &d;
  return nullptr;
}

std::string errorText(const Driver &driver, CUresult result) {
  const char *name = nullptr, *text = nullptr;
  if (driver.cuGetErrorName(result, &name) != CUDA_SUCCESS || !name)
    return format("CUDA error %d", int(result));
  std::string out = name;
  if (driver.cuGetErrorString(result, &text) == CUDA_SUCCESS && text)
    out += std::string(" (") + text + ")";
  return out;
}

kiln_status check(const Driver &driver, CUresult result, const char *call,
                  const std::string &what) {
  if (result == CUDA_SUCCESS)
    return nullptr;
  kiln_code code = result == CUDA_ERROR_OUT_OF_MEMORY ? KILN_OUT_OF_MEMORY
                                                      : KILN_DEVICE_ERROR;
  return makeStatus(code, what + ": " + call +
                              " failed: " + errorText(driver, result));
}

ContextScope::ContextScope(const Driver &driver, CUcontext context)
    : driver_(driver), result_(driver.cuCtxPushCurrent(context)) {}

ContextScope::~ContextScope() {
  if (result_ == CUDA_SUCCESS) {
    CUcontext popped;
    driver_.cuCtxPopCurrent(&popped);
  }
}

kiln_status encodeTensorMap(const Driver &driver, const TensorMapDesc &desc,
                            CUdeviceptr address, CUtensorMap &out,
                            const std::string &what) {
  if (!driver.cuTensorMapEncodeTiled)
    return makeStatus(KILN_DEVICE_ERROR,
                      what + ": the CUDA driver (" + driver.library +
                          ") has no cuTensorMapEncodeTiled (CUDA 12.0 or "
                          "newer is needed for TMA kernels)");
  CUtensorMapDataType type;
  switch (desc.dtype) {
  case KILN_DTYPE_F16:
    type = CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
    break;
  case KILN_DTYPE_BF16:
    type = CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
    break;
  case KILN_DTYPE_F32:
    type = CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
    break;
  default:
    return makeStatus(KILN_INVALID_ENGINE,
                      what + ": a tensor map of an element type TMA cannot "
                             "copy");
  }
  CUtensorMapSwizzle swizzle = desc.swizzle == 128 ? CU_TENSOR_MAP_SWIZZLE_128B
                               : desc.swizzle == 64 ? CU_TENSOR_MAP_SWIZZLE_64B
                               : desc.swizzle == 32 ? CU_TENSOR_MAP_SWIZZLE_32B
                                                    : CU_TENSOR_MAP_SWIZZLE_NONE;
  const cuuint32_t rank = static_cast<cuuint32_t>(desc.dims.size());
  std::vector<cuuint64_t> dims(desc.dims.begin(), desc.dims.end()),
      strides(desc.strides.begin(), desc.strides.end());
  std::vector<cuuint32_t> box(desc.box.begin(), desc.box.end()),
      elementStrides(rank, 1);
  CUresult r = driver.cuTensorMapEncodeTiled(
      &out, type, rank, reinterpret_cast<void *>(address), dims.data(),
      strides.data(), box.data(), elementStrides.data(),
      CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r == CUDA_SUCCESS)
    return nullptr;
  std::string shape;
  for (cuuint32_t d = 0; d < rank; ++d)
    shape += (d ? "x" : "") + std::to_string(desc.dims[d]) + "/box " +
             std::to_string(desc.box[d]);
  return check(driver, r, "cuTensorMapEncodeTiled",
               what + " (address 0x" + [&] {
                 char buf[32];
                 std::snprintf(buf, sizeof buf, "%llx",
                               static_cast<unsigned long long>(address));
                 return std::string(buf);
               }() + ", dims " + shape + ")");
}

kiln_status getDevice(const Driver &driver, int ordinal, CUdevice &device) {
  int count = 0;
  KILN_RETURN_IF_ERROR(check(driver, driver.cuDeviceGetCount(&count),
                             "cuDeviceGetCount", "counting GPUs"));
  if (ordinal < 0 || ordinal >= count)
    return makeStatus(KILN_NO_DEVICE,
                      format("CUDA device %d does not exist (this machine has "
                             "%d CUDA GPU%s)",
                             ordinal, count, count == 1 ? "" : "s"));
  return check(driver, driver.cuDeviceGet(&device, ordinal), "cuDeviceGet",
               format("CUDA device %d", ordinal));
}

} // namespace kiln::rt::cuda
