// Executor: per-device engine state (modules, weights) and contexts that run
// plans.
#include "Executor.h"

#include "Status.h"

#include <algorithm>
#include <cstring>

namespace kiln::rt {
namespace {

constexpr uint64_t kIoAlignment = 256;
/// Dynamic shared memory a kernel gets without opting in.
constexpr uint32_t kDefaultSharedLimit = 48 * 1024;

uint64_t alignUp(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

/// Parsed "sm_90", "sm_90a", "sm_100f".
struct Arch {
  int major = 0, minor = 0;
  char suffix = 0; ///< 0, 'a' (this exact GPU only) or 'f' (family)
};

bool parseArch(const std::string &s, Arch &arch) {
  if (s.size() < 4 || s.compare(0, 3, "sm_") != 0)
    return false;
  size_t i = 3;
  int n = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9')
    n = n * 10 + (s[i++] - '0');
  if (i == 3)
    return false;
  arch.major = n / 10;
  arch.minor = n % 10;
  arch.suffix = i < s.size() ? s[i] : 0;
  return true;
}

/// A cubin runs on GPUs of its major version with an equal or newer minor
/// version, except 'a' cubins, which run on their exact GPU only.
bool cubinRuns(const Arch &built, int major, int minor) {
  if (built.suffix == 'a')
    return built.major == major && built.minor == minor;
  return built.major == major && built.minor <= minor;
}

/// The driver JITs PTX for the same or any newer GPU.
bool ptxRuns(const Arch &built, int major, int minor) {
  if (built.suffix == 'a')
    return built.major == major && built.minor == minor;
  return built.major * 10 + built.minor <= major * 10 + minor;
}

std::string archName(int major, int minor) {
  return format("sm_%d%d", major, minor);
}

/// Allocates device memory; out-of-memory statuses carry the request and what
/// the device has free.
kiln_status allocate(const cuda::Driver &d, const DeviceState &dev,
                     uint64_t bytes, const std::string &what,
                     CUdeviceptr &out) {
  CUresult r = d.cuMemAlloc(&out, size_t(bytes));
  if (r == CUDA_SUCCESS)
    return nullptr;
  out = 0;
  std::string message =
      format("%s on %s: cuMemAlloc of %llu bytes failed: %s", what.c_str(),
             dev.describe().c_str(), static_cast<unsigned long long>(bytes),
             cuda::errorText(d, r).c_str());
  size_t freeBytes = 0, totalBytes = 0;
  if (r == CUDA_ERROR_OUT_OF_MEMORY &&
      d.cuMemGetInfo(&freeBytes, &totalBytes) == CUDA_SUCCESS)
    message += format(" (the device has %zu bytes free of %zu)", freeBytes,
                      totalBytes);
  return makeStatus(r == CUDA_ERROR_OUT_OF_MEMORY ? KILN_OUT_OF_MEMORY
                                                  : KILN_DEVICE_ERROR,
                    message);
}

std::string kernelName(const fb::Plan &plan, uint32_t k) {
  const fb::Kernel *kernel = plan.kernels()->Get(k);
  return format("kernel %u '%s' (entry '%s')", k,
                printable(kernel->name()->str()).c_str(),
                printable(kernel->entry()->str()).c_str());
}

} // namespace

//===----------------------------------------------------------------------===//
// DeviceState
//===----------------------------------------------------------------------===//

DeviceState::~DeviceState() {
  if (!driver || !context)
    return;
  {
    cuda::ContextScope scope(*driver, context);
    if (scope.result() == CUDA_SUCCESS) {
      for (auto &entry : modules)
        driver->cuModuleUnload(entry.second);
      for (auto &entry : weights)
        if (entry.second)
          driver->cuMemFree(entry.second);
    }
  }
  driver->cuDevicePrimaryCtxRelease(device);
}

std::string DeviceState::describe() const {
  return format("device %d (%s, %s)", ordinal, name.c_str(),
                archName(ccMajor, ccMinor).c_str());
}

//===----------------------------------------------------------------------===//
// EngineData
//===----------------------------------------------------------------------===//

kiln_status EngineData::create(std::unique_ptr<uint8_t, AlignedFree> bytes,
                               size_t size, const std::string &source,
                               std::shared_ptr<EngineData> &out) {
  auto data = std::make_shared<EngineData>();
  data->bytes = std::move(bytes);
  data->size = size;
  KILN_RETURN_IF_ERROR(
      verifyEngineImage(data->bytes.get(), size, source, data->view));
  const fb::Manifest *m = data->view.manifest;
  auto collect =
      [](const flatbuffers::Vector<flatbuffers::Offset<fb::Tensor>> *list,
         std::vector<TensorInfo> &infos) {
        if (!list)
          return;
        for (const fb::Tensor *t : *list) {
          TensorInfo info;
          info.name = t->name()->str();
          info.dtype = static_cast<kiln_dtype>(t->dtype());
          if (t->shape())
            info.dims.assign(t->shape()->begin(), t->shape()->end());
          tensorBytes(*t, info.bytes);
          infos.push_back(std::move(info));
        }
      };
  collect(m->inputs(), data->inputs);
  collect(m->outputs(), data->outputs);
  data->arch = m->target_arch()->str();
  data->compilerVersion = m->compiler_version()->str();
  if (const fb::Provenance *p = m->provenance()) {
    if (p->model_sha256())
      data->modelSha256 = p->model_sha256()->str();
    if (p->compile_flags())
      data->compileFlags = p->compile_flags()->str();
    if (p->tuning_cache_hash())
      data->tuningCacheHash = p->tuning_cache_hash()->str();
  }
  out = std::move(data);
  return nullptr;
}

bool EngineData::find(const char *name, bool &isInput, size_t &index) const {
  for (size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i].name == name) {
      isInput = true;
      index = i;
      return true;
    }
  for (size_t i = 0; i < outputs.size(); ++i)
    if (outputs[i].name == name) {
      isInput = false;
      index = i;
      return true;
    }
  return false;
}

std::string EngineData::tensorNames() const {
  std::string out;
  for (const TensorInfo &t : inputs)
    out += (out.empty() ? "'" : ", '") + printable(t.name) + "'";
  out += out.empty() ? "no inputs; " : " (inputs); ";
  std::string outs;
  for (const TensorInfo &t : outputs)
    outs += (outs.empty() ? "'" : ", '") + printable(t.name) + "'";
  return out + outs + " (outputs)";
}

kiln_status EngineData::loadImage(DeviceState &dev, const fb::Image &image,
                                  uint32_t imageIndex, CUmodule &module) {
  const cuda::Driver &d = *dev.driver;
  auto key = std::make_pair(image.cubin_section(), image.ptx_section());
  auto it = dev.modules.find(key);
  if (it != dev.modules.end()) {
    module = it->second;
    return nullptr;
  }
  std::string what =
      format("engine '%s': image %u", view.source.c_str(), imageIndex);
  if (image.name())
    what += " '" + printable(image.name()->str()) + "'";
  // The image's own architecture (an sm_90a wgmma kernel), else the
  // engine's; both verified when loading.
  const std::string imageArch =
      image.arch() && image.arch()->size() ? image.arch()->str() : arch;
  Arch built;
  parseArch(imageArch, built);

  std::string failures;
  auto tryLoad = [&](int32_t section, const char *kind) -> bool {
    const Section &s = view.sections[uint32_t(section)];
    char log[8192] = {0};
    CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER,
                              CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {log, reinterpret_cast<void *>(uintptr_t(sizeof log - 1))};
    CUresult r = d.cuModuleLoadDataEx(&module, s.data, 2, options, values);
    if (r == CUDA_SUCCESS)
      return true;
    failures += format("%s%s (%s): cuModuleLoadDataEx failed: %s",
                       failures.empty() ? "" : "; ", kind,
                       sectionName(view, uint32_t(section)).c_str(),
                       cuda::errorText(d, r).c_str());
    if (log[0])
      failures += std::string(": ") + log;
    return false;
  };

  bool loaded = false, tried = false;
  if (image.cubin_section() >= 0 &&
      cubinRuns(built, dev.ccMajor, dev.ccMinor)) {
    tried = true;
    loaded = tryLoad(image.cubin_section(), "cubin");
  }
  if (!loaded && image.ptx_section() >= 0 &&
      ptxRuns(built, dev.ccMajor, dev.ccMinor)) {
    tried = true;
    loaded = tryLoad(image.ptx_section(), "PTX");
  }
  if (!tried)
    return makeStatus(
        KILN_INCOMPATIBLE_DEVICE,
        format("%s: the engine was built for %s, which %s cannot run%s; "
               "rebuild the engine for this GPU (kilnc --arch=%s)",
               what.c_str(), imageArch.c_str(), dev.describe().c_str(),
               image.ptx_section() >= 0 ? "" : " (and it holds no PTX)",
               archName(dev.ccMajor, dev.ccMinor).c_str()));
  if (!loaded)
    return makeStatus(KILN_DEVICE_ERROR,
                      format("%s on %s: %s", what.c_str(),
                             dev.describe().c_str(), failures.c_str()));
  dev.modules.emplace(key, module);
  return nullptr;
}

kiln_status EngineData::prepareRank(DeviceState &dev, uint32_t rank,
                                    std::unique_ptr<RankState> &out) {
  const cuda::Driver &d = *dev.driver;
  const fb::Plan &plan = *view.plans[rank];
  auto state = std::make_unique<RankState>();
  uint32_t numKernels = plan.kernels() ? plan.kernels()->size() : 0;
  uint32_t numImages = plan.images() ? plan.images()->size() : 0;
  uint32_t numBuffers = plan.buffers() ? plan.buffers()->size() : 0;
  std::string engineName = "engine '" + view.source + "'";

  // Modules and functions.
  std::vector<CUmodule> modules(numImages, nullptr);
  std::map<CUfunction, uint32_t> sharedNeeds;
  state->functions.assign(numKernels, nullptr);
  for (uint32_t k = 0; k < numKernels; ++k) {
    const fb::Kernel *kernel = plan.kernels()->Get(k);
    if (kernel->library())
      continue; // a library call (the context prepares it), no module
    uint32_t img = kernel->image();
    if (!modules[img])
      KILN_RETURN_IF_ERROR(
          loadImage(dev, *plan.images()->Get(img), img, modules[img]));
    CUfunction f = nullptr;
    KILN_RETURN_IF_ERROR(cuda::check(
        d, d.cuModuleGetFunction(&f, modules[img], kernel->entry()->c_str()),
        "cuModuleGetFunction",
        format("%s: %s in image %u", engineName.c_str(),
               kernelName(plan, k).c_str(), img)));
    state->functions[k] = f;

    uint32_t shared = kernel->dynamic_shared_bytes();
    if (shared > uint32_t(dev.maxSharedOptin))
      return makeStatus(
          KILN_INCOMPATIBLE_DEVICE,
          format("%s: %s needs %u bytes of dynamic shared memory but %s "
                 "allows at most %d per block; rebuild the engine for this GPU",
                 engineName.c_str(), kernelName(plan, k).c_str(), shared,
                 dev.describe().c_str(), dev.maxSharedOptin));
    uint32_t &need = sharedNeeds[f];
    need = std::max(need, shared);

    // The plan must pass what the kernel declares; a mismatch would read
    // garbage parameters. Drivers before CUDA 12.4 cannot tell.
    if (d.cuFuncGetParamInfo) {
      std::vector<size_t> sizes;
      bool known = true;
      for (size_t i = 0; i <= kMaxKernelArgs; ++i) {
        size_t offset = 0, size = 0;
        CUresult r = d.cuFuncGetParamInfo(f, i, &offset, &size);
        if (r == CUDA_ERROR_INVALID_VALUE)
          break;
        if (r != CUDA_SUCCESS) {
          known = false;
          break;
        }
        sizes.push_back(size);
      }
      uint32_t numArgs = kernel->args() ? kernel->args()->size() : 0;
      if (known && sizes.size() != numArgs)
        return makeStatus(
            KILN_INVALID_ENGINE,
            format("%s: %s: the plan passes %u arguments but the kernel "
                   "takes %zu; the engine is inconsistent and must be rebuilt "
                   "with kilnc",
                   engineName.c_str(), kernelName(plan, k).c_str(), numArgs,
                   sizes.size()));
      for (uint32_t a = 0; known && a < numArgs; ++a) {
        const fb::Arg *arg = kernel->args()->Get(a);
        size_t width = arg->kind() == fb::ArgKind::BufferRef
                           ? sizeof(CUdeviceptr)
                       : arg->kind() == fb::ArgKind::TensorMap
                           ? sizeof(CUtensorMap)
                           : scalarSize(arg->scalar_type());
        if (width != sizes[a])
          return makeStatus(
              KILN_INVALID_ENGINE,
              format("%s: %s: argument %u is %zu bytes in the plan but the "
                     "kernel's parameter is %zu bytes; the engine is "
                     "inconsistent and must be rebuilt with kilnc",
                     engineName.c_str(), kernelName(plan, k).c_str(), a, width,
                     sizes[a]));
      }
    }
  }
  for (const auto &[f, need] : sharedNeeds)
    if (need > kDefaultSharedLimit)
      KILN_RETURN_IF_ERROR(cuda::check(
          d,
          d.cuFuncSetAttribute(
              f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, int(need)),
          "cuFuncSetAttribute",
          format("%s: allowing %u bytes of dynamic shared memory",
                 engineName.c_str(), need)));

  // Weights: each section once per device, whichever rank needs it first.
  std::vector<uint32_t> uploaded;
  auto rollback = [&] {
    for (uint32_t s : uploaded) {
      d.cuMemFree(dev.weights[s]);
      dev.weights.erase(s);
    }
  };
  state->weightAddress.assign(numBuffers, 0);
  for (uint32_t b = 0; b < numBuffers; ++b) {
    const fb::Buffer *buffer = plan.buffers()->Get(b);
    if (buffer->kind() != fb::BufferKind::Weights)
      continue;
    uint32_t s = buffer->section();
    auto it = dev.weights.find(s);
    if (it == dev.weights.end()) {
      const Section &section = view.sections[s];
      CUdeviceptr ptr = 0;
      std::string what = engineName + ": uploading " + sectionName(view, s);
      if (section.entry.size > 0) {
        if (kiln_status st = allocate(d, dev, section.entry.size, what, ptr)) {
          rollback();
          return st;
        }
        if (kiln_status st = cuda::check(
                d, d.cuMemcpyHtoD(ptr, section.data, section.entry.size),
                "cuMemcpyHtoD", what + " to " + dev.describe())) {
          d.cuMemFree(ptr);
          rollback();
          return st;
        }
      }
      it = dev.weights.emplace(s, ptr).first;
      uploaded.push_back(s);
    }
    state->weightAddress[b] = it->second + buffer->offset();
  }
  // cuMemcpyHtoD from pageable memory may return before its DMA lands, and
  // a caller's non-blocking stream does not wait for the legacy stream it
  // went to: the weights must be in place before any kernel can read them.
  if (!uploaded.empty())
    if (kiln_status st = cuda::check(d, d.cuStreamSynchronize(nullptr),
                                     "cuStreamSynchronize",
                                     engineName + ": uploading weights to " +
                                         dev.describe())) {
      rollback();
      return st;
    }
  out = std::move(state);
  return nullptr;
}

kiln_status EngineData::prepare(const cuda::Driver &driver, int ordinal,
                                uint32_t rank, DeviceState *&device,
                                const RankState *&rankState) {
  std::lock_guard<std::mutex> lock(mutex);
  std::unique_ptr<DeviceState> &slot = devices[ordinal];
  if (!slot) {
    auto dev = std::make_unique<DeviceState>();
    dev->ordinal = ordinal;
    KILN_RETURN_IF_ERROR(cuda::getDevice(driver, ordinal, dev->device));
    std::string what = format("CUDA device %d", ordinal);
    char name[256] = {0};
    KILN_RETURN_IF_ERROR(cuda::check(
        driver, driver.cuDeviceGetName(name, sizeof name - 1, dev->device),
        "cuDeviceGetName", what));
    dev->name = name;
    KILN_RETURN_IF_ERROR(cuda::check(
        driver,
        driver.cuDeviceGetAttribute(
            &dev->ccMajor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
            dev->device),
        "cuDeviceGetAttribute", what));
    KILN_RETURN_IF_ERROR(cuda::check(
        driver,
        driver.cuDeviceGetAttribute(
            &dev->ccMinor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
            dev->device),
        "cuDeviceGetAttribute", what));
    KILN_RETURN_IF_ERROR(cuda::check(
        driver,
        driver.cuDeviceGetAttribute(
            &dev->maxSharedOptin,
            CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, dev->device),
        "cuDeviceGetAttribute", what));
    KILN_RETURN_IF_ERROR(cuda::check(
        driver, driver.cuDevicePrimaryCtxRetain(&dev->context, dev->device),
        "cuDevicePrimaryCtxRetain", dev->describe()));
    dev->driver = &driver; // from here on the destructor releases the context
    dev->ranks.resize(view.plans.size());
    slot = std::move(dev);
  }
  DeviceState &dev = *slot;
  if (!dev.ranks[rank]) {
    cuda::ContextScope scope(driver, dev.context);
    KILN_RETURN_IF_ERROR(cuda::check(driver, scope.result(), "cuCtxPushCurrent",
                                     dev.describe()));
    KILN_RETURN_IF_ERROR(prepareRank(dev, rank, dev.ranks[rank]));
  }
  device = &dev;
  rankState = dev.ranks[rank].get();
  return nullptr;
}

//===----------------------------------------------------------------------===//
// Context
//===----------------------------------------------------------------------===//

kiln_status Context::create(std::shared_ptr<EngineData> engine, int device,
                            uint32_t rank, std::unique_ptr<Context> &out) {
  const EngineView &view = engine->view;
  if (rank >= view.plans.size())
    return makeStatus(KILN_INVALID_ARGUMENT,
                      format("kiln_context_create: rank %u does not exist "
                             "(engine '%s' has %zu tensor-parallel ranks)",
                             rank, view.source.c_str(), view.plans.size()));
  if (view.plans.size() > 1)
    return makeStatus(
        KILN_UNIMPLEMENTED,
        format("kiln_context_create: engine '%s' is sharded over %zu "
               "tensor-parallel ranks; running sharded engines needs "
               "collectives (NCCL), which this runtime does not have yet",
               view.source.c_str(), view.plans.size()));
  // A library the engine needs is looked for first: its absence is a
  // property of this machine whatever the GPU.
  const cublaslt::Library *cublasLt = nullptr;
  if (const auto *kernels = view.plans[rank]->kernels())
    for (uint32_t k = 0; k < kernels->size() && !cublasLt; ++k)
      if (kernels->Get(k)->library())
        KILN_RETURN_IF_ERROR(cublaslt::getLibrary(
            cublasLt, format("kiln_context_create: engine '%s': %s",
                             view.source.c_str(),
                             kernelName(*view.plans[rank], k).c_str())));
  const cuda::Driver *driver = nullptr;
  KILN_RETURN_IF_ERROR(cuda::getDriver(driver));

  std::unique_ptr<Context> ctx(new Context);
  ctx->cublasLt_ = cublasLt;
  ctx->engine_ = engine;
  ctx->rank_ = rank;
  ctx->plan_ = view.plans[rank];
  KILN_RETURN_IF_ERROR(
      engine->prepare(*driver, device, rank, ctx->device_, ctx->rankState_));
  ctx->driver_ = driver; // from here on the destructor frees device memory

  const fb::Plan &plan = *ctx->plan_;
  cuda::ContextScope scope(*driver, ctx->device_->context);
  KILN_RETURN_IF_ERROR(cuda::check(*driver, scope.result(), "cuCtxPushCurrent",
                                   ctx->device_->describe()));
  if (plan.arena_size() > 0)
    KILN_RETURN_IF_ERROR(allocate(*driver, *ctx->device_, plan.arena_size(),
                                  ctx->where() + ": allocating the activation "
                                                 "arena",
                                  ctx->arena_));
  // The kernel workspace starts zeroed: its users' flags must read zero on
  // their first launch (each launch leaves them so).
  if (plan.workspace_size() > 0) {
    const std::string what = ctx->where() + ": zeroing the kernel workspace";
    KILN_RETURN_IF_ERROR(allocate(*driver, *ctx->device_,
                                  plan.workspace_size(),
                                  ctx->where() +
                                      ": allocating the kernel workspace",
                                  ctx->kernelWorkspace_));
    if (driver->cuMemsetD8Async) {
      KILN_RETURN_IF_ERROR(cuda::check(
          *driver,
          driver->cuMemsetD8Async(ctx->kernelWorkspace_, 0,
                                  plan.workspace_size(), nullptr),
          "cuMemsetD8Async", what));
    } else {
      const std::vector<char> zeros(plan.workspace_size(), 0);
      KILN_RETURN_IF_ERROR(cuda::check(
          *driver,
          driver->cuMemcpyHtoD(ctx->kernelWorkspace_, zeros.data(),
                               zeros.size()),
          "cuMemcpyHtoD", what));
    }
    KILN_RETURN_IF_ERROR(cuda::check(*driver,
                                     driver->cuStreamSynchronize(nullptr),
                                     "cuStreamSynchronize", what));
  }

  size_t numIo = engine->inputs.size() + engine->outputs.size();
  std::vector<uint64_t> offsets(numIo);
  uint64_t total = 0;
  for (size_t i = 0; i < numIo; ++i) {
    const TensorInfo &t = i < engine->inputs.size()
                              ? engine->inputs[i]
                              : engine->outputs[i - engine->inputs.size()];
    offsets[i] = total;
    total += alignUp(t.bytes, kIoAlignment);
  }
  if (total > 0)
    KILN_RETURN_IF_ERROR(allocate(*driver, *ctx->device_, total,
                                  ctx->where() + ": allocating default input "
                                                 "and output buffers",
                                  ctx->ioBlock_));
  ctx->ioDefault_.resize(numIo);
  ctx->ioBound_.assign(numIo, 0);
  for (size_t i = 0; i < numIo; ++i)
    ctx->ioDefault_[i] = ctx->ioBlock_ ? ctx->ioBlock_ + offsets[i] : 0;

  uint32_t numBuffers = plan.buffers() ? plan.buffers()->size() : 0;
  uint32_t numKernels = plan.kernels() ? plan.kernels()->size() : 0;
  ctx->bufferAddress_.assign(numBuffers, 0);
  ctx->args_.resize(numKernels);
  for (uint32_t k = 0; k < numKernels; ++k) {
    const fb::Kernel *kernel = plan.kernels()->Get(k);
    KernelArgs &args = ctx->args_[k];
    size_t n = kernel->args() ? kernel->args()->size() : 0;
    args.slots.assign(n, 0);
    args.maps.resize(kernel->tensor_maps() ? kernel->tensor_maps()->size()
                                           : 0);
    args.pointers.resize(n);
    for (size_t a = 0; a < n; ++a) {
      const fb::Arg *arg = kernel->args()->Get(a);
      args.pointers[a] = arg->kind() == fb::ArgKind::TensorMap
                             ? static_cast<void *>(&args.maps[arg->value()])
                             : &args.slots[a];
    }
  }
  const char *pdl = std::getenv("KILN_PDL");
  const bool canPdl = driver->cuLaunchKernelEx && ctx->device_->ccMajor >= 9 &&
                      pdl && std::strcmp(pdl, "1") == 0;
  if (plan.launch_order())
    for (uint32_t k : *plan.launch_order())
      ctx->launches_.push_back(
          {k, ctx->rankState_->functions[k],
           canPdl && plan.kernels()->Get(k)->programmatic_launch()});
  {
    cuda::ContextScope scope(*driver, ctx->device_->context);
    KILN_RETURN_IF_ERROR(
        cuda::check(*driver, scope.result(), "cuCtxPushCurrent", ctx->where()));
    KILN_RETURN_IF_ERROR(ctx->updateArguments());
    if (ctx->cublasLt_)
      KILN_RETURN_IF_ERROR(ctx->prepareLibraryCalls());
  }

  const char *graphs = std::getenv("KILN_CUDA_GRAPHS");
  ctx->useGraphs_ =
      plan.is_static() && !(graphs && std::strcmp(graphs, "0") == 0);
  out = std::move(ctx);
  return nullptr;
}

Context::~Context() {
  if (!driver_ || !device_)
    return;
  cuda::ContextScope scope(*driver_, device_->context);
  if (scope.result() != CUDA_SUCCESS)
    return;
  dropGraph();
  matmuls_.clear();
  if (cublasLtHandle_)
    cublasLt_->cublasLtDestroy(cublasLtHandle_);
  if (workspace_)
    driver_->cuMemFree(workspace_);
  if (captureStream_)
    driver_->cuStreamDestroy(captureStream_);
  if (arena_)
    driver_->cuMemFree(arena_);
  if (kernelWorkspace_)
    driver_->cuMemFree(kernelWorkspace_);
  if (ioBlock_)
    driver_->cuMemFree(ioBlock_);
}

std::string Context::where() const {
  return format("engine '%s' on %s", engine_->view.source.c_str(),
                device_ ? device_->describe().c_str() : "no device");
}

size_t Context::ioSlot(bool isInput, size_t index) const {
  return isInput ? index : engine_->inputs.size() + index;
}

CUdeviceptr Context::ioAddress(size_t slot) const {
  return ioBound_[slot] ? ioBound_[slot] : ioDefault_[slot];
}

kiln_status Context::updateArguments() {
  const fb::Plan &plan = *plan_;
  for (uint32_t b = 0; b < bufferAddress_.size(); ++b) {
    const fb::Buffer *buffer = plan.buffers()->Get(b);
    switch (buffer->kind()) {
    case fb::BufferKind::Arena:
      bufferAddress_[b] = arena_ + buffer->offset();
      break;
    case fb::BufferKind::Workspace:
      bufferAddress_[b] = kernelWorkspace_ + buffer->offset();
      break;
    case fb::BufferKind::Weights:
      bufferAddress_[b] = rankState_->weightAddress[b];
      break;
    case fb::BufferKind::Input:
      bufferAddress_[b] = ioAddress(ioSlot(true, buffer->io_index()));
      break;
    case fb::BufferKind::Output:
      bufferAddress_[b] = ioAddress(ioSlot(false, buffer->io_index()));
      break;
    }
  }
  for (uint32_t k = 0; k < args_.size(); ++k) {
    const fb::Kernel *kernel = plan.kernels()->Get(k);
    for (uint32_t a = 0; a < args_[k].slots.size(); ++a) {
      const fb::Arg *arg = kernel->args()->Get(a);
      args_[k].slots[a] = arg->kind() == fb::ArgKind::BufferRef
                              ? bufferAddress_[arg->buffer()] + arg->value()
                              : arg->value();
    }
    for (uint32_t j = 0; j < args_[k].maps.size(); ++j) {
      const fb::TensorMap *m = kernel->tensor_maps()->Get(j);
      cuda::TensorMapDesc desc;
      desc.dtype = static_cast<kiln_dtype>(m->dtype());
      desc.dims.assign(m->dims()->begin(), m->dims()->end());
      desc.strides.assign(m->strides()->begin(), m->strides()->end());
      desc.box.assign(m->box()->begin(), m->box()->end());
      desc.swizzle = m->swizzle();
      const fb::Buffer *b = plan.buffers()->Get(m->buffer());
      KILN_RETURN_IF_ERROR(cuda::encodeTensorMap(
          *driver_, desc, bufferAddress_[m->buffer()] + m->offset(),
          args_[k].maps[j],
          format("%s: %s: tensor map %u over buffer '%s'", where().c_str(),
                 kernelName(plan, k).c_str(), j,
                 b->name() ? b->name()->c_str() : "")));
    }
  }
  return nullptr;
}

kiln_status Context::lookup(const char *name, const char *function,
                            bool &isInput, size_t &index) const {
  if (!name)
    return makeStatus(KILN_INVALID_ARGUMENT,
                      std::string(function) + ": name is NULL");
  if (!engine_->find(name, isInput, index))
    return makeStatus(KILN_INVALID_ARGUMENT,
                      format("%s: engine '%s' has no input or output named "
                             "'%s'; it has %s",
                             function, engine_->view.source.c_str(), name,
                             engine_->tensorNames().c_str()));
  return nullptr;
}

kiln_status Context::bind(const char *name, void *devicePtr, size_t sizeBytes) {
  bool isInput;
  size_t index;
  KILN_RETURN_IF_ERROR(lookup(name, "kiln_bind", isInput, index));
  const TensorInfo &t =
      isInput ? engine_->inputs[index] : engine_->outputs[index];
  size_t slot = ioSlot(isInput, index);
  CUdeviceptr ptr = reinterpret_cast<uintptr_t>(devicePtr);
  if (ptr) {
    if (sizeBytes < t.bytes)
      return makeStatus(
          KILN_INVALID_ARGUMENT,
          format("kiln_bind: %s '%s' needs %llu bytes but %zu were given",
                 isInput ? "input" : "output", name,
                 static_cast<unsigned long long>(t.bytes), sizeBytes));
    if (ptr % 16 != 0)
      return makeStatus(KILN_INVALID_ARGUMENT,
                        format("kiln_bind: device_ptr %p for '%s' is not "
                               "16-byte aligned",
                               devicePtr, name));
    cuda::ContextScope scope(*driver_, device_->context);
    KILN_RETURN_IF_ERROR(
        cuda::check(*driver_, scope.result(), "cuCtxPushCurrent", where()));
    unsigned int memoryType = 0;
    CUresult r = driver_->cuPointerGetAttribute(
        &memoryType, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, ptr);
    if (r != CUDA_SUCCESS || memoryType == CU_MEMORYTYPE_HOST)
      return makeStatus(
          KILN_INVALID_ARGUMENT,
          format("kiln_bind: %p for '%s' is not CUDA device memory (%s); use "
                 "kiln_copy_input_from_host/kiln_copy_output_to_host for host "
                 "memory",
                 devicePtr, name,
                 r != CUDA_SUCCESS ? cuda::errorText(*driver_, r).c_str()
                                   : "it is host memory"));
    if (memoryType == CU_MEMORYTYPE_DEVICE) {
      int ordinal = -1;
      if (driver_->cuPointerGetAttribute(&ordinal,
                                         CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                                         ptr) == CUDA_SUCCESS &&
          ordinal != device_->ordinal)
        return makeStatus(KILN_INVALID_ARGUMENT,
                          format("kiln_bind: %p for '%s' is memory of CUDA "
                                 "device %d but the context runs on %s",
                                 devicePtr, name, ordinal,
                                 device_->describe().c_str()));
    }
  }
  if (ioBound_[slot] != ptr) {
    const CUdeviceptr before = ioBound_[slot];
    ioBound_[slot] = ptr;
    // Captured kernel nodes hold the old address.
    cuda::ContextScope scope(*driver_, device_->context);
    dropGraph();
    if (kiln_status s = updateArguments()) {
      // A tensor map the driver refuses over this address: keep the
      // previous binding, whose arguments were valid.
      ioBound_[slot] = before;
      kiln_status_free(updateArguments());
      return s;
    }
  }
  return nullptr;
}

kiln_status Context::devicePointer(const char *name, CUdeviceptr &out) {
  bool isInput;
  size_t index;
  KILN_RETURN_IF_ERROR(lookup(name, "kiln_tensor_device_ptr", isInput, index));
  out = ioAddress(ioSlot(isInput, index));
  return nullptr;
}

kiln_status Context::copyIn(const char *name, const void *host, size_t bytes,
                            CUstream stream) {
  const char *fn = "kiln_copy_input_from_host";
  bool isInput;
  size_t index;
  KILN_RETURN_IF_ERROR(lookup(name, fn, isInput, index));
  if (!isInput)
    return makeStatus(KILN_INVALID_ARGUMENT,
                      format("%s: '%s' is an output, not an input", fn, name));
  const TensorInfo &t = engine_->inputs[index];
  if (bytes != t.bytes)
    return makeStatus(KILN_INVALID_ARGUMENT,
                      format("%s: input '%s' is %llu bytes but %zu were given",
                             fn, name, static_cast<unsigned long long>(t.bytes),
                             bytes));
  if (bytes == 0)
    return nullptr;
  if (!host)
    return makeStatus(KILN_INVALID_ARGUMENT,
                      format("%s: host pointer for '%s' is NULL", fn, name));
  cuda::ContextScope scope(*driver_, device_->context);
  KILN_RETURN_IF_ERROR(
      cuda::check(*driver_, scope.result(), "cuCtxPushCurrent", where()));
  std::string what = format("%s: %s: input '%s'", fn, where().c_str(), name);
  KILN_RETURN_IF_ERROR(
      cuda::check(*driver_,
                  driver_->cuMemcpyHtoDAsync(ioAddress(ioSlot(true, index)),
                                             host, bytes, stream),
                  "cuMemcpyHtoDAsync", what));
  return cuda::check(*driver_, driver_->cuStreamSynchronize(stream),
                     "cuStreamSynchronize", what);
}

kiln_status Context::copyOut(const char *name, void *host, size_t bytes,
                             CUstream stream) {
  const char *fn = "kiln_copy_output_to_host";
  bool isInput;
  size_t index;
  KILN_RETURN_IF_ERROR(lookup(name, fn, isInput, index));
  if (isInput)
    return makeStatus(KILN_INVALID_ARGUMENT,
                      format("%s: '%s' is an input, not an output", fn, name));
  const TensorInfo &t = engine_->outputs[index];
  if (bytes != t.bytes)
    return makeStatus(KILN_INVALID_ARGUMENT,
                      format("%s: output '%s' is %llu bytes but %zu were given",
                             fn, name, static_cast<unsigned long long>(t.bytes),
                             bytes));
  if (bytes == 0)
    return nullptr;
  if (!host)
    return makeStatus(KILN_INVALID_ARGUMENT,
                      format("%s: host pointer for '%s' is NULL", fn, name));
  cuda::ContextScope scope(*driver_, device_->context);
  KILN_RETURN_IF_ERROR(
      cuda::check(*driver_, scope.result(), "cuCtxPushCurrent", where()));
  // Errors of earlier asynchronous kernels surface here too; say so.
  std::string what = format("%s: %s: output '%s' (an error may come from a "
                            "kernel of an earlier kiln_run)",
                            fn, where().c_str(), name);
  KILN_RETURN_IF_ERROR(
      cuda::check(*driver_,
                  driver_->cuMemcpyDtoHAsync(
                      host, ioAddress(ioSlot(false, index)), bytes, stream),
                  "cuMemcpyDtoHAsync", what));
  return cuda::check(*driver_, driver_->cuStreamSynchronize(stream),
                     "cuStreamSynchronize", what);
}

kiln_status Context::prepareLibraryCalls() {
  const fb::Plan &plan = *plan_;
  const uint32_t numKernels = plan.kernels() ? plan.kernels()->size() : 0;
  matmuls_.resize(numKernels);
  uint64_t workspace = 0;
  for (uint32_t k = 0; k < numKernels; ++k)
    if (const fb::LibraryCall *l = plan.kernels()->Get(k)->library())
      workspace = std::max<uint64_t>(workspace, l->workspace_bytes());
  cublasStatus_t st = cublasLt_->cublasLtCreate(&cublasLtHandle_);
  if (st != CUBLAS_STATUS_SUCCESS) {
    cublasLtHandle_ = nullptr;
    return makeStatus(KILN_DEVICE_ERROR,
                      format("%s: cublasLtCreate failed: %s", where().c_str(),
                             cublaslt::statusText(*cublasLt_, st).c_str()));
  }
  if (workspace > 0)
    KILN_RETURN_IF_ERROR(allocate(*driver_, *device_, workspace,
                                  where() + ": allocating the cuBLASLt "
                                            "workspace",
                                  workspace_));
  for (uint32_t k = 0; k < numKernels; ++k) {
    const fb::Kernel *kernel = plan.kernels()->Get(k);
    const fb::LibraryCall *l = kernel->library();
    if (!l)
      continue;
    const cublaslt::MatmulDesc d = libraryCallOf(*l);
    const CUdeviceptr bias =
        l->bias() >= 0 ? args_[k].slots[uint32_t(l->bias())] : 0;
    KILN_RETURN_IF_ERROR(cublaslt::Matmul::create(
        *cublasLt_, cublasLtHandle_, d, workspace_ ? d.workspaceBytes : 0,
        bias, /*exact=*/false, matmuls_[k],
        where() + ": " + kernelName(plan, k)));
  }
  return nullptr;
}

kiln_status Context::runLibraryCall(CUstream stream, size_t step) {
  const fb::Plan &plan = *plan_;
  const uint32_t k = launches_[step].kernel;
  const fb::LibraryCall &l = *plan.kernels()->Get(k)->library();
  const std::vector<uint64_t> &slots = args_[k].slots;
  auto operand = [&](int32_t i) -> CUdeviceptr {
    return i >= 0 ? slots[uint32_t(i)] : 0;
  };
  const cublasStatus_t st = matmuls_[k]->run(
      cublasLtHandle_, operand(l.a()), operand(l.b()), operand(l.c()),
      operand(l.d()), operand(l.bias()), workspace_, stream);
  if (st == CUBLAS_STATUS_SUCCESS)
    return nullptr;
  return makeStatus(
      KILN_DEVICE_ERROR,
      format("kiln_run: %s: %s, step %zu of the launch order: cublasLtMatmul "
             "failed: %s",
             where().c_str(), kernelName(plan, k).c_str(), step,
             cublaslt::statusText(*cublasLt_, st).c_str()));
}

kiln_status Context::launchStep(CUstream stream, size_t step) {
  const fb::Plan &plan = *plan_;
  const Launch &launch = launches_[step];
  const fb::Kernel *k = plan.kernels()->Get(launch.kernel);
  if (k->library())
    return runLibraryCall(stream, step);
  const fb::Dim3 *g = k->grid(), *b = k->block();
  void **params = args_[launch.kernel].pointers.empty()
                      ? nullptr
                      : args_[launch.kernel].pointers.data();
  CUresult r;
  if (launch.programmatic) {
    // The kernel may start while its predecessor drains; its
    // griddepcontrol.wait holds it until that grid's memory is visible.
    CUlaunchAttribute attr{};
    attr.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    attr.value.programmaticStreamSerializationAllowed = 1;
    CUlaunchConfig cfg{};
    cfg.gridDimX = g->x();
    cfg.gridDimY = g->y();
    cfg.gridDimZ = g->z();
    cfg.blockDimX = b->x();
    cfg.blockDimY = b->y();
    cfg.blockDimZ = b->z();
    cfg.sharedMemBytes = k->dynamic_shared_bytes();
    cfg.hStream = stream;
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
    r = driver_->cuLaunchKernelEx(&cfg, launch.function, params, nullptr);
    if (r != CUDA_SUCCESS)
      return cuda::check(
          *driver_, r, "cuLaunchKernelEx",
          format("kiln_run: %s: %s, step %zu of the launch order "
                 "(programmatic launch; KILN_PDL=0 turns it off)",
                 where().c_str(), kernelName(plan, launch.kernel).c_str(),
                 step));
  } else {
    r = driver_->cuLaunchKernel(launch.function, g->x(), g->y(), g->z(),
                                b->x(), b->y(), b->z(),
                                k->dynamic_shared_bytes(), stream, params,
                                nullptr);
  }
  if (r != CUDA_SUCCESS)
    return cuda::check(
        *driver_, r, "cuLaunchKernel",
        format("kiln_run: %s: %s, step %zu of the launch order (grid "
               "%ux%ux%u, block %ux%ux%u, %u bytes dynamic shared memory)",
               where().c_str(), kernelName(plan, launch.kernel).c_str(), step,
               g->x(), g->y(), g->z(), b->x(), b->y(), b->z(),
               k->dynamic_shared_bytes()));
  return nullptr;
}

kiln_status Context::launchAll(CUstream stream) {
  for (size_t step = 0; step < launches_.size(); ++step)
    KILN_RETURN_IF_ERROR(launchStep(stream, step));
  return nullptr;
}

void Context::dropGraph() {
  if (graph_) {
    driver_->cuGraphExecDestroy(graph_);
    graph_ = nullptr;
  }
}

kiln_status Context::capture() {
  std::string what = "kiln_run: " + where() + ": capturing the plan";
  if (!captureStream_)
    KILN_RETURN_IF_ERROR(cuda::check(
        *driver_,
        driver_->cuStreamCreate(&captureStream_, CU_STREAM_NON_BLOCKING),
        "cuStreamCreate", what));
  // Thread-local mode: other threads' CUDA calls cannot invalidate it.
  KILN_RETURN_IF_ERROR(
      cuda::check(*driver_,
                  driver_->cuStreamBeginCapture(
                      captureStream_, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
                  "cuStreamBeginCapture", what));
  kiln_status launched = launchAll(captureStream_);
  CUgraph graph = nullptr;
  CUresult ended = driver_->cuStreamEndCapture(captureStream_, &graph);
  if (launched) {
    if (graph)
      driver_->cuGraphDestroy(graph);
    return launched;
  }
  KILN_RETURN_IF_ERROR(
      cuda::check(*driver_, ended, "cuStreamEndCapture", what));
  CUgraphExec exec = nullptr;
  CUresult r = driver_->cuGraphInstantiate(&exec, graph, 0);
  driver_->cuGraphDestroy(graph);
  KILN_RETURN_IF_ERROR(cuda::check(*driver_, r, "cuGraphInstantiate", what));
  graph_ = exec;
  return nullptr;
}

kiln_status Context::run(CUstream stream) {
  cuda::ContextScope scope(*driver_, device_->context);
  KILN_RETURN_IF_ERROR(
      cuda::check(*driver_, scope.result(), "cuCtxPushCurrent", where()));
  lastRunUsedGraph_ = false;
  if (launches_.empty())
    return nullptr;
  if (useGraphs_) {
    CUstreamCaptureStatus capturing = CU_STREAM_CAPTURE_STATUS_NONE;
    KILN_RETURN_IF_ERROR(
        cuda::check(*driver_, driver_->cuStreamIsCapturing(stream, &capturing),
                    "cuStreamIsCapturing", "kiln_run: " + where()));
    // Inside the caller's own capture, plain launches become part of it.
    if (capturing == CU_STREAM_CAPTURE_STATUS_NONE) {
      if (!graph_)
        KILN_RETURN_IF_ERROR(capture());
      KILN_RETURN_IF_ERROR(
          cuda::check(*driver_, driver_->cuGraphLaunch(graph_, stream),
                      "cuGraphLaunch", "kiln_run: " + where()));
      lastRunUsedGraph_ = true;
      return nullptr;
    }
  }
  return launchAll(stream);
}

kiln_status Context::synchronize(CUstream stream) {
  cuda::ContextScope scope(*driver_, device_->context);
  KILN_RETURN_IF_ERROR(
      cuda::check(*driver_, scope.result(), "cuCtxPushCurrent", where()));
  return cuda::check(*driver_, driver_->cuStreamSynchronize(stream),
                     "cuStreamSynchronize",
                     "kiln_stream_synchronize: " + where());
}

namespace {

/// CUDA events created for one measurement and destroyed with it.
class EventSet {
public:
  EventSet(const cuda::Driver &driver) : driver_(driver) {}
  ~EventSet() {
    for (CUevent e : events_)
      driver_.cuEventDestroy(e);
  }
  EventSet(const EventSet &) = delete;
  EventSet &operator=(const EventSet &) = delete;

  kiln_status create(size_t n, const std::string &what) {
    events_.reserve(n);
    for (size_t i = 0; i < n; ++i) {
      CUevent e = nullptr;
      KILN_RETURN_IF_ERROR(cuda::check(
          driver_, driver_.cuEventCreate(&e, CU_EVENT_DEFAULT),
          "cuEventCreate", what));
      events_.push_back(e);
    }
    return nullptr;
  }
  CUevent operator[](size_t i) const { return events_[i]; }

private:
  const cuda::Driver &driver_;
  std::vector<CUevent> events_;
};

} // namespace

kiln_status Context::timeRuns(CUstream stream, size_t runs, size_t batch,
                              float *ms) {
  std::string what = "kiln_time_runs: " + where();
  // Events belong to the context current when they are created; run()
  // pushes the same context again, which nests.
  cuda::ContextScope scope(*driver_, device_->context);
  KILN_RETURN_IF_ERROR(
      cuda::check(*driver_, scope.result(), "cuCtxPushCurrent", what));
  EventSet events(*driver_);
  KILN_RETURN_IF_ERROR(events.create(2, what));
  for (size_t i = 0; i < runs; ++i) {
    KILN_RETURN_IF_ERROR(cuda::check(
        *driver_, driver_->cuEventRecord(events[0], stream), "cuEventRecord",
        what));
    for (size_t b = 0; b < batch; ++b)
      KILN_RETURN_IF_ERROR(run(stream));
    KILN_RETURN_IF_ERROR(cuda::check(
        *driver_, driver_->cuEventRecord(events[1], stream), "cuEventRecord",
        what));
    KILN_RETURN_IF_ERROR(cuda::check(*driver_,
                                     driver_->cuEventSynchronize(events[1]),
                                     "cuEventSynchronize", what));
    KILN_RETURN_IF_ERROR(cuda::check(
        *driver_, driver_->cuEventElapsedTime(&ms[i], events[0], events[1]),
        "cuEventElapsedTime", what));
    ms[i] /= static_cast<float>(batch);
  }
  return nullptr;
}

kiln_status Context::profileLaunches(CUstream stream, size_t repeats,
                                     float *ms) {
  std::string what = "kiln_profile_launches: " + where();
  cuda::ContextScope scope(*driver_, device_->context);
  KILN_RETURN_IF_ERROR(
      cuda::check(*driver_, scope.result(), "cuCtxPushCurrent", what));
  size_t n = launches_.size();
  EventSet events(*driver_);
  KILN_RETURN_IF_ERROR(events.create(n + 1, what));
  std::vector<std::vector<float>> samples(n);
  for (size_t r = 0; r < repeats; ++r) {
    KILN_RETURN_IF_ERROR(cuda::check(
        *driver_, driver_->cuEventRecord(events[0], stream), "cuEventRecord",
        what));
    for (size_t step = 0; step < n; ++step) {
      KILN_RETURN_IF_ERROR(launchStep(stream, step));
      KILN_RETURN_IF_ERROR(cuda::check(
          *driver_, driver_->cuEventRecord(events[step + 1], stream),
          "cuEventRecord", what));
    }
    KILN_RETURN_IF_ERROR(cuda::check(*driver_,
                                     driver_->cuEventSynchronize(events[n]),
                                     "cuEventSynchronize", what));
    for (size_t step = 0; step < n; ++step) {
      float t = 0;
      KILN_RETURN_IF_ERROR(cuda::check(
          *driver_,
          driver_->cuEventElapsedTime(&t, events[step], events[step + 1]),
          "cuEventElapsedTime",
          what + ": " + kernelName(*plan_, launches_[step].kernel)));
      samples[step].push_back(t);
    }
  }
  for (size_t step = 0; step < n; ++step) {
    std::vector<float> &v = samples[step];
    if (v.empty()) {
      ms[step] = 0;
      continue;
    }
    std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
    ms[step] = v[v.size() / 2];
  }
  return nullptr;
}

} // namespace kiln::rt
