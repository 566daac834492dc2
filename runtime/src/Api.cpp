// The C API: argument checks and exception barriers over the executor.
#include "kiln/engine_format.h"
#include "kiln/kiln.h"

#include "Executor.h"
#include "Status.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef KILN_VERSION
#define KILN_VERSION "unknown"
#endif

struct kiln_engine_t {
  std::shared_ptr<kiln::rt::EngineData> data;
};

struct kiln_context_t {
  std::unique_ptr<kiln::rt::Context> impl;
};

using namespace kiln::rt;

namespace {

/// Runs `body` and turns any escaping exception into a status.
template <typename F>
kiln_status guarded(const char *function, F &&body) noexcept {
  try {
    return body();
  } catch (...) {
    return statusFromException(function);
  }
}

kiln_status nullArgument(const char *function, const char *what) {
  return makeStatus(KILN_INVALID_ARGUMENT,
                    std::string(function) + ": " + what + " is NULL");
}

/// A zeroed buffer of at least `size` bytes aligned to the weight alignment,
/// so every section's offset alignment is also its address alignment.
kiln_status allocateImage(size_t size,
                          std::unique_ptr<uint8_t, AlignedFree> &out,
                          const std::string &source) {
  size_t rounded =
      (size / KILN_ENGINE_WEIGHT_ALIGNMENT + 1) * KILN_ENGINE_WEIGHT_ALIGNMENT;
  if (rounded < size)
    return makeStatus(KILN_OUT_OF_MEMORY,
                      "engine '" + source + "' is too large");
  void *p = std::aligned_alloc(KILN_ENGINE_WEIGHT_ALIGNMENT, rounded);
  if (!p)
    return makeStatus(KILN_OUT_OF_MEMORY,
                      format("engine '%s': cannot allocate %zu bytes of host "
                             "memory to hold it",
                             source.c_str(), size));
  out.reset(static_cast<uint8_t *>(p));
  return nullptr;
}

kiln_status tensorInfo(const kiln_engine *engine, size_t index,
                       kiln_tensor_info *info, bool input) {
  const char *fn = input ? "kiln_engine_input_info" : "kiln_engine_output_info";
  if (!engine)
    return nullArgument(fn, "engine");
  if (!info)
    return nullArgument(fn, "info");
  const auto &list = input ? engine->data->inputs : engine->data->outputs;
  if (index >= list.size())
    return makeStatus(KILN_INVALID_ARGUMENT,
                      format("%s: index %zu is out of range (the engine has "
                             "%zu %s)",
                             fn, index, list.size(),
                             input ? "inputs" : "outputs"));
  const TensorInfo &t = list[index];
  info->name = t.name.c_str();
  info->dtype = t.dtype;
  info->rank = t.dims.size();
  info->dims = t.dims.data();
  info->size_bytes = size_t(t.bytes);
  return nullptr;
}

} // namespace

extern "C" {

const char *kiln_runtime_version(void) { return KILN_VERSION; }

uint32_t kiln_runtime_engine_format_version(void) {
  return KILN_ENGINE_FORMAT_VERSION;
}

//===----------------------------------------------------------------------===//
// Engines
//===----------------------------------------------------------------------===//

kiln_status kiln_engine_load(const char *path, kiln_engine **engine) {
  const char *fn = "kiln_engine_load";
  if (engine)
    *engine = nullptr;
  if (!path)
    return nullArgument(fn, "path");
  if (!engine)
    return nullArgument(fn, "engine");
  return guarded(fn, [&]() -> kiln_status {
    int fd = ::open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      int err = errno;
      return makeStatus(
          err == ENOENT ? KILN_NOT_FOUND : KILN_IO_ERROR,
          format("cannot open engine '%s': %s", path, std::strerror(err)));
    }
    struct FdCloser {
      int fd;
      ~FdCloser() { ::close(fd); }
    } closer{fd};
    struct stat st;
    if (::fstat(fd, &st) != 0)
      return makeStatus(KILN_IO_ERROR, format("cannot stat engine '%s': %s",
                                              path, std::strerror(errno)));
    if (!S_ISREG(st.st_mode))
      return makeStatus(KILN_IO_ERROR,
                        format("engine '%s' is not a regular file", path));
    size_t size = size_t(st.st_size);
    std::unique_ptr<uint8_t, AlignedFree> bytes;
    KILN_RETURN_IF_ERROR(allocateImage(size, bytes, path));
    size_t done = 0;
    while (done < size) {
      ssize_t n = ::read(fd, bytes.get() + done, size - done);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        return makeStatus(KILN_IO_ERROR, format("cannot read engine '%s': %s",
                                                path, std::strerror(errno)));
      if (n == 0)
        return makeStatus(KILN_IO_ERROR,
                          format("engine '%s' shrank while it was read (%zu of "
                                 "%zu bytes)",
                                 path, done, size));
      done += size_t(n);
    }
    std::shared_ptr<EngineData> data;
    KILN_RETURN_IF_ERROR(
        EngineData::create(std::move(bytes), size, path, data));
    *engine = new kiln_engine_t{std::move(data)};
    return nullptr;
  });
}

kiln_status kiln_engine_load_from_memory(const void *data, size_t size,
                                         kiln_engine **engine) {
  const char *fn = "kiln_engine_load_from_memory";
  if (engine)
    *engine = nullptr;
  if (!data && size)
    return nullArgument(fn, "data");
  if (!engine)
    return nullArgument(fn, "engine");
  return guarded(fn, [&]() -> kiln_status {
    std::unique_ptr<uint8_t, AlignedFree> bytes;
    KILN_RETURN_IF_ERROR(allocateImage(size, bytes, "<memory>"));
    if (size)
      std::memcpy(bytes.get(), data, size);
    std::shared_ptr<EngineData> loaded;
    KILN_RETURN_IF_ERROR(
        EngineData::create(std::move(bytes), size, "<memory>", loaded));
    *engine = new kiln_engine_t{std::move(loaded)};
    return nullptr;
  });
}

void kiln_engine_free(kiln_engine *engine) {
  try {
    delete engine;
  } catch (...) {
  }
}

size_t kiln_engine_num_inputs(const kiln_engine *engine) {
  return engine ? engine->data->inputs.size() : 0;
}

size_t kiln_engine_num_outputs(const kiln_engine *engine) {
  return engine ? engine->data->outputs.size() : 0;
}

kiln_status kiln_engine_input_info(const kiln_engine *engine, size_t index,
                                   kiln_tensor_info *info) {
  return tensorInfo(engine, index, info, true);
}

kiln_status kiln_engine_output_info(const kiln_engine *engine, size_t index,
                                    kiln_tensor_info *info) {
  return tensorInfo(engine, index, info, false);
}

kiln_status kiln_engine_find_tensor(const kiln_engine *engine, const char *name,
                                    int *is_input, size_t *index) {
  const char *fn = "kiln_engine_find_tensor";
  if (!engine)
    return nullArgument(fn, "engine");
  if (!name)
    return nullArgument(fn, "name");
  return guarded(fn, [&]() -> kiln_status {
    bool input = false;
    size_t i = 0;
    if (!engine->data->find(name, input, i))
      return makeStatus(KILN_INVALID_ARGUMENT,
                        format("%s: engine '%s' has no input or output named "
                               "'%s'; it has %s",
                               fn, engine->data->view.source.c_str(), name,
                               engine->data->tensorNames().c_str()));
    if (is_input)
      *is_input = input ? 1 : 0;
    if (index)
      *index = i;
    return nullptr;
  });
}

const char *kiln_engine_arch(const kiln_engine *engine) {
  return engine ? engine->data->arch.c_str() : "";
}

const char *kiln_engine_compiler_version(const kiln_engine *engine) {
  return engine ? engine->data->compilerVersion.c_str() : "";
}

uint32_t kiln_engine_format_version(const kiln_engine *engine) {
  return engine ? engine->data->view.header.format_version : 0;
}

uint32_t kiln_engine_num_ranks(const kiln_engine *engine) {
  return engine ? uint32_t(engine->data->view.plans.size()) : 0;
}

const char *kiln_engine_model_sha256(const kiln_engine *engine) {
  return engine ? engine->data->modelSha256.c_str() : "";
}

const char *kiln_engine_compile_flags(const kiln_engine *engine) {
  return engine ? engine->data->compileFlags.c_str() : "";
}

const char *kiln_engine_tuning_cache_hash(const kiln_engine *engine) {
  return engine ? engine->data->tuningCacheHash.c_str() : "";
}

//===----------------------------------------------------------------------===//
// Devices and contexts
//===----------------------------------------------------------------------===//

kiln_status kiln_device_count(int *count) {
  const char *fn = "kiln_device_count";
  if (count)
    *count = 0;
  if (!count)
    return nullArgument(fn, "count");
  return guarded(fn, [&]() -> kiln_status {
    const cuda::Driver *driver = nullptr;
    KILN_RETURN_IF_ERROR(cuda::getDriver(driver));
    return cuda::check(*driver, driver->cuDeviceGetCount(count),
                       "cuDeviceGetCount", fn);
  });
}

kiln_status kiln_context_create_for_rank(const kiln_engine *engine, int device,
                                         uint32_t rank,
                                         kiln_context **context) {
  const char *fn = "kiln_context_create";
  if (context)
    *context = nullptr;
  if (!engine)
    return nullArgument(fn, "engine");
  if (!context)
    return nullArgument(fn, "context");
  return guarded(fn, [&]() -> kiln_status {
    std::unique_ptr<Context> impl;
    KILN_RETURN_IF_ERROR(Context::create(engine->data, device, rank, impl));
    *context = new kiln_context_t{std::move(impl)};
    return nullptr;
  });
}

kiln_status kiln_context_create(const kiln_engine *engine, int device,
                                kiln_context **context) {
  return kiln_context_create_for_rank(engine, device, 0, context);
}

void kiln_context_free(kiln_context *context) {
  try {
    delete context;
  } catch (...) {
  }
}

kiln_status kiln_bind(kiln_context *context, const char *name, void *device_ptr,
                      size_t size_bytes) {
  if (!context)
    return nullArgument("kiln_bind", "context");
  return guarded("kiln_bind", [&] {
    return context->impl->bind(name, device_ptr, size_bytes);
  });
}

kiln_status kiln_tensor_device_ptr(kiln_context *context, const char *name,
                                   void **device_ptr) {
  const char *fn = "kiln_tensor_device_ptr";
  if (!context)
    return nullArgument(fn, "context");
  if (!device_ptr)
    return nullArgument(fn, "device_ptr");
  return guarded(fn, [&]() -> kiln_status {
    CUdeviceptr ptr = 0;
    KILN_RETURN_IF_ERROR(context->impl->devicePointer(name, ptr));
    *device_ptr = reinterpret_cast<void *>(uintptr_t(ptr));
    return nullptr;
  });
}

kiln_status kiln_copy_input_from_host(kiln_context *context, const char *name,
                                      const void *host, size_t size_bytes,
                                      kiln_stream stream) {
  const char *fn = "kiln_copy_input_from_host";
  if (!context)
    return nullArgument(fn, "context");
  return guarded(fn, [&] {
    return context->impl->copyIn(name, host, size_bytes,
                                 reinterpret_cast<CUstream>(stream));
  });
}

kiln_status kiln_copy_output_to_host(kiln_context *context, const char *name,
                                     void *host, size_t size_bytes,
                                     kiln_stream stream) {
  const char *fn = "kiln_copy_output_to_host";
  if (!context)
    return nullArgument(fn, "context");
  return guarded(fn, [&] {
    return context->impl->copyOut(name, host, size_bytes,
                                  reinterpret_cast<CUstream>(stream));
  });
}

kiln_status kiln_run(kiln_context *context, kiln_stream stream) {
  if (!context)
    return nullArgument("kiln_run", "context");
  return guarded("kiln_run", [&] {
    return context->impl->run(reinterpret_cast<CUstream>(stream));
  });
}

kiln_status kiln_stream_synchronize(kiln_context *context, kiln_stream stream) {
  const char *fn = "kiln_stream_synchronize";
  if (!context)
    return nullArgument(fn, "context");
  return guarded(fn, [&] {
    return context->impl->synchronize(reinterpret_cast<CUstream>(stream));
  });
}

int kiln_context_uses_graph(const kiln_context *context) {
  return context && context->impl->usedGraph() ? 1 : 0;
}

size_t kiln_engine_num_launches(const kiln_engine *engine) {
  if (!engine || engine->data->view.plans.empty())
    return 0;
  const auto *order = engine->data->view.plans[0]->launch_order();
  return order ? order->size() : 0;
}

kiln_status kiln_engine_launch_info(const kiln_engine *engine, size_t step,
                                    kiln_launch_info *info) {
  const char *fn = "kiln_engine_launch_info";
  if (!engine)
    return nullArgument(fn, "engine");
  if (!info)
    return nullArgument(fn, "info");
  size_t n = kiln_engine_num_launches(engine);
  if (step >= n)
    return makeStatus(KILN_INVALID_ARGUMENT,
                      format("%s: step %zu is out of range (the plan has %zu "
                             "launches)",
                             fn, step, n));
  // The verifier checked every launch_order entry against the kernel list.
  const kiln::fb::Plan &plan = *engine->data->view.plans[0];
  const kiln::fb::Kernel *k = plan.kernels()->Get(plan.launch_order()->Get(step));
  info->name = k->name()->c_str();
  info->entry = k->entry()->c_str();
  info->nodes = k->nodes() ? k->nodes()->c_str() : "";
  info->bytes = k->bytes();
  info->flops = k->flops();
  info->grid[0] = k->grid()->x();
  info->grid[1] = k->grid()->y();
  info->grid[2] = k->grid()->z();
  info->block[0] = k->block()->x();
  info->block[1] = k->block()->y();
  info->block[2] = k->block()->z();
  info->dynamic_shared_bytes = k->dynamic_shared_bytes();
  return nullptr;
}

kiln_status kiln_time_runs(kiln_context *context, kiln_stream stream,
                           size_t runs, float *times_ms) {
  const char *fn = "kiln_time_runs";
  if (!context)
    return nullArgument(fn, "context");
  if (!times_ms && runs)
    return nullArgument(fn, "times_ms");
  return guarded(fn, [&] {
    return context->impl->timeRuns(reinterpret_cast<CUstream>(stream), runs,
                                   1, times_ms);
  });
}

kiln_status kiln_time_run_batches(kiln_context *context, kiln_stream stream,
                                  size_t samples, size_t batch,
                                  float *times_ms) {
  const char *fn = "kiln_time_run_batches";
  if (!context)
    return nullArgument(fn, "context");
  if (!times_ms && samples)
    return nullArgument(fn, "times_ms");
  if (batch == 0)
    return makeStatus(KILN_INVALID_ARGUMENT,
                      std::string(fn) + ": batch must be at least 1");
  return guarded(fn, [&] {
    return context->impl->timeRuns(reinterpret_cast<CUstream>(stream),
                                   samples, batch, times_ms);
  });
}

kiln_status kiln_profile_launches(kiln_context *context, kiln_stream stream,
                                  size_t repeats, float *launch_ms,
                                  size_t num_launches) {
  const char *fn = "kiln_profile_launches";
  if (!context)
    return nullArgument(fn, "context");
  if (!launch_ms && num_launches)
    return nullArgument(fn, "launch_ms");
  return guarded(fn, [&] {
    size_t n = context->impl->numLaunches();
    if (num_launches != n)
      return makeStatus(KILN_INVALID_ARGUMENT,
                        format("%s: num_launches is %zu but the plan has %zu "
                               "launches",
                               fn, num_launches, n));
    return context->impl->profileLaunches(reinterpret_cast<CUstream>(stream),
                                          repeats, launch_ms);
  });
}

} // extern "C"
