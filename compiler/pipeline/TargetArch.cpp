//===- TargetArch.cpp - The GPU architecture to compile for ---------------===//
#include "compiler/pipeline/TargetArch.h"

#include <dlfcn.h>

namespace kiln {

std::string defaultTargetArch() {
  const std::string fallback = "sm_90";
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib)
    return fallback;
  using InitFn = int (*)(unsigned);
  using CountFn = int (*)(int *);
  using GetFn = int (*)(int *, int);
  using AttrFn = int (*)(int *, int, int);
  auto init = reinterpret_cast<InitFn>(dlsym(lib, "cuInit"));
  auto count = reinterpret_cast<CountFn>(dlsym(lib, "cuDeviceGetCount"));
  auto get = reinterpret_cast<GetFn>(dlsym(lib, "cuDeviceGet"));
  auto attr = reinterpret_cast<AttrFn>(dlsym(lib, "cuDeviceGetAttribute"));
  std::string arch = fallback;
  int n = 0, dev = 0, major = 0, minor = 0;
  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75, _MINOR = 76.
  if (init && count && get && attr && init(0) == 0 && count(&n) == 0 && n > 0 &&
      get(&dev, 0) == 0 && attr(&major, 75, dev) == 0 && attr(&minor, 76, dev) == 0)
    arch = "sm_" + std::to_string(major) + std::to_string(minor);
  dlclose(lib);
  return arch;
}

std::string gpuDriverVersion() {
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib)
    return "none";
  using InitFn = int (*)(unsigned);
  using CountFn = int (*)(int *);
  using VersionFn = int (*)(int *);
  auto init = reinterpret_cast<InitFn>(dlsym(lib, "cuInit"));
  auto count = reinterpret_cast<CountFn>(dlsym(lib, "cuDeviceGetCount"));
  auto version = reinterpret_cast<VersionFn>(dlsym(lib, "cuDriverGetVersion"));
  std::string out = "none";
  int n = 0, v = 0;
  if (init && count && version && init(0) == 0 && count(&n) == 0 && n > 0 &&
      version(&v) == 0)
    out = std::to_string(v);
  dlclose(lib);
  return out;
}

} // namespace kiln
