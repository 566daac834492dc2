// Device layer: loads libcuda.so.1 with dlopen and turns CUDA results into
// statuses.
#include "Cuda.h"

#include "Status.h"

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
