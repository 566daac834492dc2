// Kiln runtime: header-only C++ wrapper over kiln.h (RAII, no exceptions).
//
// Every fallible call returns a kiln::Status; objects free themselves.
//
//   kiln::Engine engine;
//   if (kiln::Status s = kiln::Engine::load("model.engine", engine); !s.ok())
//     return fail(s.message());
//   kiln::Context ctx;
//   kiln::Status s = kiln::Context::create(engine, /*device=*/0, ctx);
//   if (s.ok()) s = ctx.copyInputFromHost("x", x.data(), x.size() * 4);
//   if (s.ok()) s = ctx.run();
#ifndef KILN_KILN_HPP
#define KILN_KILN_HPP

#include "kiln/kiln.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace kiln {

/// Owns a kiln_status. Default-constructed and moved-from Statuses are OK.
class [[nodiscard]] Status {
public:
  Status() = default;
  /// Takes ownership of `status` (NULL is OK).
  explicit Status(kiln_status status) : status_(status) {}
  Status(Status &&other) noexcept : status_(other.release()) {}
  Status &operator=(Status &&other) noexcept {
    if (this != &other) {
      kiln_status_free(status_);
      status_ = other.release();
    }
    return *this;
  }
  Status(const Status &) = delete;
  Status &operator=(const Status &) = delete;
  ~Status() { kiln_status_free(status_); }

  bool ok() const { return status_ == nullptr; }
  kiln_code code() const { return kiln_status_code(status_); }
  const char *codeName() const { return kiln_code_name(code()); }
  /// "ok" when ok(); valid while this Status lives.
  const char *message() const { return kiln_status_message(status_); }
  /// Gives up ownership (for handing a status on through the C API).
  kiln_status release() {
    kiln_status s = status_;
    status_ = nullptr;
    return s;
  }

private:
  kiln_status status_ = nullptr;
};

/// An input or output of an engine.
struct TensorInfo {
  std::string name;
  kiln_dtype dtype = KILN_DTYPE_INVALID;
  std::vector<int64_t> dims;
  size_t sizeBytes = 0;
};

class Engine {
public:
  Engine() = default;
  Engine(Engine &&other) noexcept : engine_(other.engine_) {
    other.engine_ = nullptr;
  }
  Engine &operator=(Engine &&other) noexcept {
    if (this != &other) {
      kiln_engine_free(engine_);
      engine_ = other.engine_;
      other.engine_ = nullptr;
    }
    return *this;
  }
  Engine(const Engine &) = delete;
  Engine &operator=(const Engine &) = delete;
  ~Engine() { kiln_engine_free(engine_); }

  /// Replaces `out` with the engine at `path` (unchanged on failure).
  static Status load(const std::string &path, Engine &out) {
    kiln_engine *e = nullptr;
    Status s(kiln_engine_load(path.c_str(), &e));
    if (s.ok())
      out.reset(e);
    return s;
  }
  static Status loadFromMemory(const void *data, size_t size, Engine &out) {
    kiln_engine *e = nullptr;
    Status s(kiln_engine_load_from_memory(data, size, &e));
    if (s.ok())
      out.reset(e);
    return s;
  }

  bool valid() const { return engine_ != nullptr; }
  const kiln_engine *get() const { return engine_; }

  size_t numInputs() const { return kiln_engine_num_inputs(engine_); }
  size_t numOutputs() const { return kiln_engine_num_outputs(engine_); }
  Status input(size_t index, TensorInfo &out) const {
    return info(index, out, true);
  }
  Status output(size_t index, TensorInfo &out) const {
    return info(index, out, false);
  }
  std::vector<TensorInfo> inputs() const { return all(true); }
  std::vector<TensorInfo> outputs() const { return all(false); }
  std::string arch() const { return kiln_engine_arch(engine_); }
  std::string compilerVersion() const {
    return kiln_engine_compiler_version(engine_);
  }
  uint32_t formatVersion() const { return kiln_engine_format_version(engine_); }
  uint32_t numRanks() const { return kiln_engine_num_ranks(engine_); }
  std::string modelSha256() const { return kiln_engine_model_sha256(engine_); }
  std::string compileFlags() const {
    return kiln_engine_compile_flags(engine_);
  }
  std::string tuningCacheHash() const {
    return kiln_engine_tuning_cache_hash(engine_);
  }

private:
  void reset(kiln_engine *e) {
    kiln_engine_free(engine_);
    engine_ = e;
  }
  Status info(size_t index, TensorInfo &out, bool isInput) const {
    kiln_tensor_info raw;
    Status s(isInput ? kiln_engine_input_info(engine_, index, &raw)
                     : kiln_engine_output_info(engine_, index, &raw));
    if (s.ok()) {
      out.name = raw.name;
      out.dtype = raw.dtype;
      out.dims.assign(raw.dims, raw.dims + raw.rank);
      out.sizeBytes = raw.size_bytes;
    }
    return s;
  }
  std::vector<TensorInfo> all(bool isInput) const {
    std::vector<TensorInfo> out(isInput ? numInputs() : numOutputs());
    for (size_t i = 0; i < out.size(); ++i)
      (void)info(i, out[i], isInput);
    return out;
  }

  kiln_engine *engine_ = nullptr;
};

class Context {
public:
  Context() = default;
  Context(Context &&other) noexcept : context_(other.context_) {
    other.context_ = nullptr;
  }
  Context &operator=(Context &&other) noexcept {
    if (this != &other) {
      kiln_context_free(context_);
      context_ = other.context_;
      other.context_ = nullptr;
    }
    return *this;
  }
  Context(const Context &) = delete;
  Context &operator=(const Context &) = delete;
  ~Context() { kiln_context_free(context_); }

  /// Replaces `out` with a new context on CUDA device `device`.
  static Status create(const Engine &engine, int device, Context &out) {
    kiln_context *c = nullptr;
    Status s(kiln_context_create(engine.get(), device, &c));
    if (s.ok()) {
      kiln_context_free(out.context_);
      out.context_ = c;
    }
    return s;
  }

  bool valid() const { return context_ != nullptr; }
  kiln_context *get() const { return context_; }

  Status bind(const std::string &name, void *devicePtr, size_t sizeBytes) {
    return Status(kiln_bind(context_, name.c_str(), devicePtr, sizeBytes));
  }
  Status unbind(const std::string &name) { return bind(name, nullptr, 0); }
  Status devicePointer(const std::string &name, void *&out) {
    return Status(kiln_tensor_device_ptr(context_, name.c_str(), &out));
  }
  Status copyInputFromHost(const std::string &name, const void *host,
                           size_t sizeBytes, kiln_stream stream = nullptr) {
    return Status(kiln_copy_input_from_host(context_, name.c_str(), host,
                                            sizeBytes, stream));
  }
  Status copyOutputToHost(const std::string &name, void *host, size_t sizeBytes,
                          kiln_stream stream = nullptr) {
    return Status(kiln_copy_output_to_host(context_, name.c_str(), host,
                                           sizeBytes, stream));
  }
  Status run(kiln_stream stream = nullptr) {
    return Status(kiln_run(context_, stream));
  }
  Status synchronize(kiln_stream stream = nullptr) {
    return Status(kiln_stream_synchronize(context_, stream));
  }
  bool usedGraph() const { return kiln_context_uses_graph(context_) != 0; }

private:
  kiln_context *context_ = nullptr;
};

/// Number of CUDA GPUs (0 with a KILN_NO_DEVICE status without a driver).
inline Status deviceCount(int &count) {
  return Status(kiln_device_count(&count));
}

} // namespace kiln

#endif // KILN_KILN_HPP
