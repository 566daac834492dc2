//===- GpuMeasure.cpp - Timing tuning candidates on the GPU ---------------===//
#include "autotune/GpuMeasure.h"

#include "kiln/internal/cublaslt.h"
#include "kiln/internal/device.h"
#include "kiln/kiln.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <cstdio>
#include <sstream>
#include <unistd.h>

namespace kiln::autotune {
namespace {

namespace cu = kiln::rt::cuda;
namespace lt = kiln::rt::cublaslt;

/// Bytes written to flush the L2 between timed runs (H200: 60 MiB of L2).
constexpr size_t kFlushBytes = size_t(256) << 20;

std::string statusText(kiln_status s) {
  std::string out = kiln_status_message(s);
  kiln_status_free(s);
  return out;
}

/// Everything a worker holds on the GPU. Errors are returned as text; a
/// CUDA error after a kernel ran poisons the context, so the caller stops
/// the worker (Measure.h's "bye").
class Session {
public:
  bool open(const GpuJob &job, std::string &error) {
    job_ = &job;
    if (kiln_status s = cu::getDriver(d_)) {
      error = statusText(s);
      return false;
    }
    CUdevice dev;
    if (kiln_status s = cu::getDevice(*d_, 0, dev)) {
      error = statusText(s);
      return false;
    }
    if (!ok(d_->cuDevicePrimaryCtxRetain(&ctx_, dev),
            "cuDevicePrimaryCtxRetain", error) ||
        !ok(d_->cuCtxPushCurrent(ctx_), "cuCtxPushCurrent", error) ||
        !ok(d_->cuStreamCreate(&stream_, CU_STREAM_NON_BLOCKING),
            "cuStreamCreate", error))
      return false;
    for (size_t i = 0; i < job.inputs.size(); ++i) {
      std::vector<char> host;
      if (!fillInput(job.inputs[i], job.seed + i, host, error))
        return false;
      CUdeviceptr p = 0;
      if (!alloc(host.size(), p, error) ||
          (!host.empty() &&
           (!ok(d_->cuMemcpyHtoDAsync(p, host.data(), host.size(), stream_),
                "cuMemcpyHtoDAsync", error) ||
            !sync(error))))
        return false;
    }
    for (const BufferDesc &o : job.outputs) {
      CUdeviceptr p = 0;
      if (!alloc(size_t(o.elements) * dtypeSize(o.dtype), p, error))
        return false;
    }
    if (d_->cuMemsetD8Async) {
      if (!ok(d_->cuMemAlloc(&flush_, kFlushBytes), "cuMemAlloc", error))
        return false;
    }
    return true;
  }

  /// Loads candidate `i` (replacing the previous one).
  bool load(size_t i, std::string &error) {
    unload();
    const GpuKernel &k = job_->candidates[i];
    if (k.hasLibrary)
      return loadLibraryCall(k, error);
    if (!ok(d_->cuModuleLoadDataEx(&module_, k.image.data(), 0, nullptr,
                                   nullptr),
            "cuModuleLoadDataEx", error) ||
        !ok(d_->cuModuleGetFunction(&fn_, module_, k.entry.c_str()),
            "cuModuleGetFunction", error))
      return false;
    if (k.smem > 48 * 1024 &&
        !ok(d_->cuFuncSetAttribute(
                fn_, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                int(k.smem)),
            "cuFuncSetAttribute", error))
      return false;
    // Parameters: one pointer per buffer, then the tensor maps encoded over
    // this worker's buffers.
    params_.clear();
    for (CUdeviceptr &p : ptrs_)
      params_.push_back(&p);
    maps_.assign(k.tensorMaps.size(), CUtensorMap{});
    for (size_t j = 0; j < k.tensorMaps.size(); ++j) {
      const TensorMapArg &m = k.tensorMaps[j];
      if (m.buffer >= ptrs_.size()) {
        error = "tensor map " + std::to_string(j) + " names buffer " +
                std::to_string(m.buffer) + " of " +
                std::to_string(ptrs_.size());
        return false;
      }
      cu::TensorMapDesc desc;
      desc.dtype = kiln_dtype_from_name(m.dtype.c_str());
      desc.dims = m.dims;
      desc.strides = m.strides;
      desc.box = m.box;
      desc.swizzle = m.swizzle;
      if (kiln_status s = cu::encodeTensorMap(
              *d_, desc, ptrs_[m.buffer] + m.offset, maps_[j],
              "tensor map " + std::to_string(j))) {
        error = statusText(s);
        return false;
      }
      params_.push_back(&maps_[j]);
    }
    // The kernel workspace, last: zeroed for each candidate (a faulting one
    // ends the worker, so no candidate finds flags another left raised).
    if (k.workspaceBytes > 0) {
      if (!ok(d_->cuMemAlloc(&kernelWorkspace_, k.workspaceBytes), "cuMemAlloc",
              error))
        return false;
      const std::vector<char> zeros(k.workspaceBytes, 0);
      if (!ok(d_->cuMemcpyHtoDAsync(kernelWorkspace_, zeros.data(), zeros.size(),
                                    stream_),
              "cuMemcpyHtoDAsync", error) ||
          !sync(error))
        return false;
      params_.push_back(&kernelWorkspace_);
    }
    kernel_ = &k;
    return true;
  }

  bool launch(std::string &error) {
    const GpuKernel &k = *kernel_;
    if (matmul_) {
      const engine::LibraryCallSpec &c = k.library;
      auto at = [&](int32_t i) -> CUdeviceptr { return i >= 0 ? ptrs_[i] : 0; };
      const cublasStatus_t s =
          matmul_->run(ltHandle_, at(c.a), at(c.b), at(c.c), at(c.d),
                       at(c.bias), workspace_, stream_);
      if (s != CUBLAS_STATUS_SUCCESS) {
        error = "cublasLtMatmul failed: " + lt::statusText(*lt_, s);
        return false;
      }
      return true;
    }
    return ok(d_->cuLaunchKernel(fn_, k.grid[0], k.grid[1], k.grid[2],
                                 k.block[0], k.block[1], k.block[2], k.smem,
                                 stream_, params_.data(), nullptr),
              "cuLaunchKernel", error);
  }

  bool sync(std::string &error) {
    return ok(d_->cuStreamSynchronize(stream_), "cuStreamSynchronize", error);
  }

  /// Runs the loaded kernel once over outputs set to 0xff bytes (NaN for
  /// floats, so an element it does not write cannot match) and reads them.
  bool runOnce(std::vector<std::vector<char>> &outs, std::string &error) {
    const size_t firstOut = job_->inputs.size();
    outs.assign(job_->outputs.size(), {});
    for (size_t o = 0; o < job_->outputs.size(); ++o) {
      const size_t bytes =
          size_t(job_->outputs[o].elements) * dtypeSize(job_->outputs[o].dtype);
      outs[o].assign(bytes, char(0xff));
      // On the kernel's stream: a cuMemcpyHtoD from pageable memory may
      // return before its DMA lands, and this non-blocking stream does not
      // wait for the legacy stream, so the fill's tail could overwrite what
      // the kernel just wrote (a NaN at the output's last rows, seen once).
      if (bytes &&
          !ok(d_->cuMemcpyHtoDAsync(ptrs_[firstOut + o], outs[o].data(),
                                    bytes, stream_),
              "cuMemcpyHtoDAsync", error))
        return false;
    }
    if (!launch(error) || !sync(error))
      return false;
    for (size_t o = 0; o < outs.size(); ++o)
      if (!outs[o].empty() &&
          !ok(d_->cuMemcpyDtoHAsync(outs[o].data(), ptrs_[firstOut + o],
                                    outs[o].size(), stream_),
              "cuMemcpyDtoHAsync", error))
        return false;
    return sync(error);
  }

  /// `count` timed runs of the loaded kernel, each after an L2 flush.
  bool time(int count, std::vector<double> &ms, std::string &error) {
    std::vector<CUevent> events(2 * size_t(count));
    bool good = true;
    for (CUevent &e : events)
      good = good && ok(d_->cuEventCreate(&e, CU_EVENT_DEFAULT),
                        "cuEventCreate", error);
    for (int r = 0; good && r < count; ++r) {
      if (flush_)
        good = ok(d_->cuMemsetD8Async(flush_, uint8_t(r), kFlushBytes, stream_),
                  "cuMemsetD8Async", error);
      good = good &&
             ok(d_->cuEventRecord(events[2 * r], stream_), "cuEventRecord",
                error) &&
             launch(error) &&
             ok(d_->cuEventRecord(events[2 * r + 1], stream_), "cuEventRecord",
                error);
    }
    good = good && sync(error);
    for (int r = 0; good && r < count; ++r) {
      float t = 0;
      good = ok(d_->cuEventElapsedTime(&t, events[2 * r], events[2 * r + 1]),
                "cuEventElapsedTime", error);
      ms.push_back(t);
    }
    for (CUevent e : events)
      if (e)
        d_->cuEventDestroy(e);
    return good;
  }

  ~Session() {
    matmul_.reset();
    if (ltHandle_)
      lt_->cublasLtDestroy(ltHandle_);
  }

private:
  /// A cuBLASLt candidate: the library, one handle and workspace per
  /// worker, and the call's descriptors with the algorithm it names.
  bool loadLibraryCall(const GpuKernel &k, std::string &error) {
    const engine::LibraryCallSpec &c = k.library;
    if (!lt_) {
      if (kiln_status s = lt::getLibrary(lt_, "the cuBLASLt candidate")) {
        error = statusText(s);
        return false;
      }
      if (lt_->cublasLtCreate(&ltHandle_) != CUBLAS_STATUS_SUCCESS) {
        ltHandle_ = nullptr;
        error = "cublasLtCreate failed";
        return false;
      }
    }
    for (int32_t i : {c.a, c.b, c.c, c.d, c.bias})
      if (i >= int32_t(ptrs_.size())) {
        error = "the cuBLASLt call names buffer " + std::to_string(i) +
                " of " + std::to_string(ptrs_.size());
        return false;
      }
    if (c.workspaceBytes > workspaceBytes_) {
      if (workspace_)
        d_->cuMemFree(workspace_);
      workspace_ = 0;
      workspaceBytes_ = 0;
      if (!ok(d_->cuMemAlloc(&workspace_, c.workspaceBytes), "cuMemAlloc",
              error))
        return false;
      workspaceBytes_ = c.workspaceBytes;
    }
    if (kiln_status s = lt::Matmul::create(
            *lt_, ltHandle_, c, c.workspaceBytes,
            c.bias >= 0 ? ptrs_[c.bias] : 0, /*exact=*/true, matmul_,
            "cuBLASLt candidate")) {
      error = statusText(s);
      return false;
    }
    kernel_ = &k;
    return true;
  }

  bool ok(CUresult r, const char *call, std::string &error) {
    if (r == CUDA_SUCCESS)
      return true;
    error = std::string(call) + " failed: " + cu::errorText(*d_, r);
    return false;
  }
  bool alloc(size_t bytes, CUdeviceptr &p, std::string &error) {
    // Empty buffers still get a distinct valid pointer.
    if (!ok(d_->cuMemAlloc(&p, std::max<size_t>(bytes, 256)), "cuMemAlloc",
            error))
      return false;
    ptrs_.push_back(p);
    return true;
  }
  void unload() {
    if (module_)
      d_->cuModuleUnload(module_);
    module_ = nullptr;
    kernel_ = nullptr;
    matmul_.reset();
    if (kernelWorkspace_)
      d_->cuMemFree(kernelWorkspace_);
    kernelWorkspace_ = 0;
  }

  const GpuJob *job_ = nullptr;
  const cu::Driver *d_ = nullptr;
  CUcontext ctx_ = nullptr;
  CUstream stream_ = nullptr;
  CUmodule module_ = nullptr;
  CUfunction fn_ = nullptr;
  const GpuKernel *kernel_ = nullptr;
  CUdeviceptr flush_ = 0;
  /// The loaded candidate's kernel workspace (GpuKernel::workspaceBytes).
  CUdeviceptr kernelWorkspace_ = 0;
  std::vector<CUdeviceptr> ptrs_;
  std::vector<CUtensorMap> maps_; ///< the loaded candidate's tensor maps
  std::vector<void *> params_;    ///< its kernel parameters
  const lt::Library *lt_ = nullptr;
  cublasLtHandle_t ltHandle_ = nullptr;
  std::unique_ptr<lt::Matmul> matmul_; ///< the loaded cuBLASLt candidate
  CUdeviceptr workspace_ = 0;
  uint64_t workspaceBytes_ = 0;
};

std::string fmtMs(double ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", ms);
  return buf;
}

using Emit = std::function<void(const std::string &)>;

/// Phase one in a worker: reference, then check and time each candidate.
void checkAndTime(const GpuJob &job, const std::vector<size_t> &todo,
                  const Emit &emit) {
  Session s;
  std::string error;
  if (!s.open(job, error)) {
    emit(std::to_string(todo.front()) + " fail " + error);
    emit("bye");
    ::_exit(0);
  }
  std::vector<std::vector<char>> ref;
  for (size_t i : todo) {
    std::vector<std::vector<char>> outs;
    std::vector<double> ms;
    std::string why;
    if (!s.load(i, error)) {
      // A module that does not load leaves the context usable.
      emit(std::to_string(i) + " fail " + error);
      continue;
    }
    if (!s.runOnce(outs, error)) {
      emit(std::to_string(i) + " fail " + error);
      emit("bye"); // the context is lost after a fault
      ::_exit(0);
    }
    if (i == 0) {
      ref = outs;
    } else {
      bool match = true;
      for (size_t o = 0; match && o < outs.size(); ++o)
        if (!outputsMatch(job.outputs[o].dtype, ref[o], outs[o], why)) {
          why = "output " + std::to_string(o) +
                " differs from the reference: " + why;
          match = false;
        }
      if (!match) {
        emit(std::to_string(i) + " fail " + why);
        continue;
      }
    }
    std::vector<double> warm;
    if (!s.time(job.warmup, warm, error) || !s.time(job.runs, ms, error)) {
      emit(std::to_string(i) + " fail " + error);
      emit("bye");
      ::_exit(0);
    }
    emit(std::to_string(i) + " ok " + fmtMs(median(ms)));
  }
}

/// Phase two: the finalists, one run each in turn, `runs` rounds.
void retimeInterleaved(const GpuJob &job, const std::vector<size_t> &finalists,
                       const Emit &emit) {
  Session s;
  std::string error;
  if (!s.open(job, error))
    ::_exit(1);
  std::vector<std::vector<double>> ms(finalists.size());
  for (int r = 0; r < job.runs; ++r)
    for (size_t f = 0; f < finalists.size(); ++f) {
      std::vector<double> one;
      if (!s.load(finalists[f], error) || !s.time(1, one, error))
        ::_exit(1);
      ms[f].push_back(one[0]);
      emit("tick"); // keeps the timeout per run, not per phase
    }
  for (size_t f = 0; f < finalists.size(); ++f)
    emit(std::to_string(finalists[f]) + " ok " + fmtMs(median(ms[f])));
}

// --- Exec'd workers: the job as a file, the worker's command line. ---

std::string &workerExecutable() {
  static std::string exe;
  return exe;
}

constexpr char kJobMagic[8] = {'K', 'G', 'J', 'O', 'B', '0', '0', '1'};

class JobWriter {
public:
  void raw(const void *p, size_t n) {
    const char *c = static_cast<const char *>(p);
    bytes.insert(bytes.end(), c, c + n);
  }
  template <class T> void num(T v) { raw(&v, sizeof v); }
  void str(const std::string &v) {
    num<uint64_t>(v.size());
    raw(v.data(), v.size());
  }
  template <class T> void vec(const std::vector<T> &v) {
    num<uint64_t>(v.size());
    for (const T &x : v)
      num(x);
  }
  std::vector<char> bytes;
};

class JobReader {
public:
  explicit JobReader(const std::vector<char> &b) : b_(b) {}
  bool raw(void *p, size_t n) {
    if (n > b_.size() - pos_)
      return false;
    std::memcpy(p, b_.data() + pos_, n);
    pos_ += n;
    return true;
  }
  template <class T> bool num(T &v) { return raw(&v, sizeof v); }
  bool str(std::string &v) {
    uint64_t n;
    if (!num(n) || n > b_.size() - pos_)
      return false;
    v.assign(b_.data() + pos_, n);
    pos_ += n;
    return true;
  }
  template <class T> bool vec(std::vector<T> &v) {
    uint64_t n;
    if (!num(n) || n > (b_.size() - pos_) / sizeof(T))
      return false;
    v.resize(n);
    for (T &x : v)
      if (!num(x))
        return false;
    return true;
  }
  bool atEnd() const { return pos_ == b_.size(); }

private:
  const std::vector<char> &b_;
  size_t pos_ = 0;
};

std::vector<char> encodeJobBytes(const GpuJob &job) {
  JobWriter w;
  w.raw(kJobMagic, sizeof kJobMagic);
  w.num<int32_t>(job.warmup);
  w.num<int32_t>(job.runs);
  w.num<double>(job.timeoutSeconds);
  w.num<uint64_t>(job.seed);
  for (const auto *list : {&job.inputs, &job.outputs}) {
    w.num<uint64_t>(list->size());
    for (const BufferDesc &d : *list) {
      w.str(d.dtype);
      w.num<int64_t>(d.elements);
      w.num<int64_t>(d.intLo);
      w.num<int64_t>(d.intHi);
    }
  }
  w.num<uint64_t>(job.candidates.size());
  for (const GpuKernel &k : job.candidates) {
    w.num<uint64_t>(k.image.size());
    w.raw(k.image.data(), k.image.size());
    w.str(k.entry);
    for (int d = 0; d < 3; ++d) {
      w.num<uint32_t>(k.grid[d]);
      w.num<uint32_t>(k.block[d]);
    }
    w.num<uint32_t>(k.smem);
    w.num<uint8_t>(k.hasLibrary);
    if (k.hasLibrary) {
      const engine::LibraryCallSpec &c = k.library;
      w.num<uint32_t>(uint32_t(c.dtype));
      w.num<uint8_t>(c.tf32);
      for (uint64_t v : {c.m, c.n, c.k, c.lda, c.ldb, c.ldc, c.batch,
                         c.strideA, c.strideB, c.strideC, c.workspaceBytes,
                         c.libraryVersion})
        w.num<uint64_t>(v);
      w.num<uint8_t>(c.transA);
      w.num<uint8_t>(c.transB);
      w.num<float>(c.alpha);
      w.num<float>(c.beta);
      w.num<uint8_t>(uint8_t(c.epilogue));
      for (int32_t v : {c.a, c.b, c.c, c.d, c.bias})
        w.num<int32_t>(v);
      w.num<uint32_t>(c.algo);
      w.num<uint32_t>(c.alignment);
    }
    w.num<uint64_t>(k.workspaceBytes);
    w.num<uint64_t>(k.tensorMaps.size());
    for (const TensorMapArg &m : k.tensorMaps) {
      w.num<uint32_t>(m.buffer);
      w.num<uint64_t>(m.offset);
      w.str(m.dtype);
      w.vec(m.dims);
      w.vec(m.strides);
      w.vec(m.box);
      w.num<uint32_t>(m.swizzle);
    }
  }
  return std::move(w.bytes);
}

bool decodeJobBytes(const std::vector<char> &bytes, GpuJob &job) {
  JobReader r(bytes);
  char magic[sizeof kJobMagic];
  if (!r.raw(magic, sizeof magic) ||
      std::memcmp(magic, kJobMagic, sizeof magic) != 0)
    return false;
  int32_t warmup, runs;
  if (!r.num(warmup) || !r.num(runs) || !r.num(job.timeoutSeconds) ||
      !r.num(job.seed))
    return false;
  job.warmup = warmup;
  job.runs = runs;
  for (auto *list : {&job.inputs, &job.outputs}) {
    uint64_t n;
    if (!r.num(n) || n > bytes.size())
      return false;
    list->resize(n);
    for (BufferDesc &d : *list)
      if (!r.str(d.dtype) || !r.num(d.elements) || !r.num(d.intLo) ||
          !r.num(d.intHi))
        return false;
  }
  uint64_t n;
  if (!r.num(n) || n > bytes.size())
    return false;
  job.candidates.resize(n);
  for (GpuKernel &k : job.candidates) {
    uint64_t size;
    if (!r.num(size) || size > bytes.size())
      return false;
    k.image.resize(size);
    if (!r.raw(k.image.data(), size) || !r.str(k.entry))
      return false;
    for (int d = 0; d < 3; ++d)
      if (!r.num(k.grid[d]) || !r.num(k.block[d]))
        return false;
    uint8_t hasLibrary = 0;
    if (!r.num(k.smem) || !r.num(hasLibrary) || hasLibrary > 1)
      return false;
    k.hasLibrary = hasLibrary;
    if (k.hasLibrary) {
      engine::LibraryCallSpec &c = k.library;
      uint32_t dtype;
      uint8_t tf32, ta, tb, ep;
      if (!r.num(dtype) || !r.num(tf32))
        return false;
      c.dtype = static_cast<kiln_dtype>(dtype);
      for (uint64_t *v : {&c.m, &c.n, &c.k, &c.lda, &c.ldb, &c.ldc, &c.batch,
                          &c.strideA, &c.strideB, &c.strideC,
                          &c.workspaceBytes, &c.libraryVersion})
        if (!r.num(*v))
          return false;
      if (!r.num(ta) || !r.num(tb) || !r.num(c.alpha) || !r.num(c.beta) ||
          !r.num(ep) || ep > uint8_t(engine::MatmulEpilogue::GeluTanhBias))
        return false;
      for (int32_t *v : {&c.a, &c.b, &c.c, &c.d, &c.bias})
        if (!r.num(*v))
          return false;
      if (!r.num(c.algo) || !r.num(c.alignment))
        return false;
      c.tf32 = tf32;
      c.transA = ta;
      c.transB = tb;
      c.epilogue = engine::MatmulEpilogue(ep);
    }
    uint64_t maps;
    if (!r.num(k.workspaceBytes) || k.workspaceBytes > (uint64_t(1) << 32) ||
        !r.num(maps) || maps > bytes.size())
      return false;
    k.tensorMaps.resize(maps);
    for (TensorMapArg &m : k.tensorMaps)
      if (!r.num(m.buffer) || !r.num(m.offset) || !r.str(m.dtype) ||
          !r.vec(m.dims) || !r.vec(m.strides) || !r.vec(m.box) ||
          !r.num(m.swizzle))
        return false;
  }
  return r.atEnd();
}

/// The job written to a temporary file for exec'd workers (nothing when
/// workers run in the forked child); removed with the object.
class JobFile {
public:
  explicit JobFile(const GpuJob &job) {
    if (workerExecutable().empty())
      return;
    const char *dir = std::getenv("TMPDIR");
    std::string templ = std::string(dir && *dir ? dir : "/tmp") +
                        "/kiln-gpu-job-XXXXXX";
    std::vector<char> name(templ.begin(), templ.end());
    name.push_back('\0');
    int fd = ::mkstemp(name.data());
    if (fd < 0)
      return;
    const std::vector<char> bytes = encodeJobBytes(job);
    size_t done = 0;
    while (done < bytes.size()) {
      ssize_t w = ::write(fd, bytes.data() + done, bytes.size() - done);
      if (w < 0 && errno == EINTR)
        continue;
      if (w <= 0)
        break;
      done += size_t(w);
    }
    ::close(fd);
    if (done == bytes.size())
      path = name.data();
    else
      ::unlink(name.data());
  }
  ~JobFile() {
    if (!path.empty())
      ::unlink(path.c_str());
  }
  std::string path; ///< empty: run in the forked child
};

/// In a worker: runs `inProcess`, or with an executable set execs it in
/// `mode` over `file` and `indices` (its stdout is this worker's pipe). An
/// exec that fails reports `failIndex` (if any) failed.
void runWorkerBody(const char *mode, const std::string &file,
                   const std::vector<size_t> &indices, const Emit &emit,
                   const std::function<void()> &inProcess) {
  const std::string &exe = workerExecutable();
  if (exe.empty()) {
    inProcess();
    return;
  }
  if (file.empty() && std::strcmp(mode, "probe") != 0) {
    // No job file (TMPDIR unwritable): measuring in this forked child could
    // meet a CUDA the compiler initialized, so the candidates fail instead.
    for (size_t i : indices)
      emit(std::to_string(i) + " fail the GPU job file could not be written "
                               "(set TMPDIR to a writable folder)");
    return;
  }
  std::vector<std::string> args = {exe, "--kiln-gpu-worker", mode,
                                    file.empty() ? "-" : file};
  for (size_t i : indices)
    args.push_back(std::to_string(i));
  std::vector<char *> argv;
  for (std::string &a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  const int fd = workerOutputFd();
  if (fd >= 0 && ::dup2(fd, STDOUT_FILENO) >= 0)
    ::execv(exe.c_str(), argv.data());
  const std::string why =
      "cannot start the GPU worker " + exe + ": " + std::strerror(errno);
  if (std::strcmp(mode, "probe") == 0)
    emit("error " + why);
  else if (!indices.empty())
    emit(std::to_string(indices.front()) + " fail " + why);
  emit("bye");
}

void probeBody(const Emit &emit) {
  const cu::Driver *d = nullptr;
  if (kiln_status s = cu::getDriver(d)) {
    emit("error " + statusText(s));
    return;
  }
  CUdevice dev;
  if (kiln_status s = cu::getDevice(*d, 0, dev)) {
    emit("error " + statusText(s));
    return;
  }
  int major = 0, minor = 0;
  d->cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                          dev);
  d->cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                          dev);
  // cuBLASLt, where it loads, for its candidates ("none" otherwise).
  std::string lt = "none";
  const lt::Library *library = nullptr;
  if (kiln_status s = lt::getLibrary(library, "the probe"))
    kiln_status_free(s);
  else
    lt = std::to_string(library->version);
  emit("gpu " + std::to_string(d->version) + " sm_" + std::to_string(major) +
       std::to_string(minor) + " " + lt);
}

} // namespace

std::vector<char> encodeGpuJob(const GpuJob &job) {
  return encodeJobBytes(job);
}
bool decodeGpuJob(const std::vector<char> &bytes, GpuJob &job) {
  return decodeJobBytes(bytes, job);
}

void setGpuWorkerExecutable(const std::string &executable) {
  workerExecutable() = executable;
}

int gpuWorkerMain(int argc, char **argv) {
  const Emit emit = [](const std::string &line) {
    std::fputs((line + "\n").c_str(), stdout);
    std::fflush(stdout);
  };
  if (argc < 4 || std::strcmp(argv[1], "--kiln-gpu-worker") != 0) {
    std::fprintf(stderr, "usage: %s --kiln-gpu-worker check|retime|probe "
                         "JOB [INDEX...]\n",
                 argc ? argv[0] : "kilnc");
    return 2;
  }
  const std::string mode = argv[2];
  if (mode == "probe") {
    probeBody(emit);
    return 0;
  }
  std::vector<char> bytes;
  if (FILE *f = std::fopen(argv[3], "rb")) {
    char buf[1 << 16];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0)
      bytes.insert(bytes.end(), buf, buf + n);
    std::fclose(f);
  }
  GpuJob job;
  std::vector<size_t> indices;
  for (int i = 4; i < argc; ++i)
    indices.push_back(std::strtoull(argv[i], nullptr, 10));
  if (!decodeJobBytes(bytes, job) || indices.empty()) {
    emit((indices.empty() ? std::string("0") : std::to_string(indices[0])) +
         " fail the GPU worker could not read its job " + argv[3]);
    emit("bye");
    return 0;
  }
  for (size_t i : indices)
    if (i >= job.candidates.size()) {
      emit(std::to_string(i) + " fail no such candidate in the job");
      emit("bye");
      return 0;
    }
  if (mode == "check")
    checkAndTime(job, indices, emit);
  else if (mode == "retime")
    retimeInterleaved(job, indices, emit);
  else
    return 2;
  return 0;
}

std::vector<Measurement> measureOnGpu(const GpuJob &job,
                                      std::vector<std::string> &notes) {
  const JobFile file(job);
  std::vector<Measurement> first = measureInWorkers(
      job.candidates.size(),
      [&](const std::vector<size_t> &todo, const Emit &emit) {
        runWorkerBody("check", file.path, todo, emit,
                      [&] { checkAndTime(job, todo, emit); });
      },
      job.timeoutSeconds, notes);
  std::vector<Measurement> valid;
  for (const Measurement &m : first)
    if (m.medianMs)
      valid.push_back(m);
  if (valid.size() < 2)
    return first;
  std::sort(valid.begin(), valid.end(),
            [](const Measurement &a, const Measurement &b) {
              return *a.medianMs != *b.medianMs ? *a.medianMs < *b.medianMs
                                                : a.candidate < b.candidate;
            });
  std::vector<size_t> finalists;
  for (size_t i = 0; i < valid.size() && i < 3; ++i)
    finalists.push_back(valid[i].candidate);
  std::vector<std::string> lines;
  WorkerEnd end = runWorker(
      [&](const Emit &emit) {
        runWorkerBody("retime", file.path, finalists, emit,
                      [&] { retimeInterleaved(job, finalists, emit); });
      },
      job.timeoutSeconds, lines);
  std::vector<Measurement> retimed = first;
  size_t got = 0;
  for (const std::string &line : lines) {
    std::istringstream is(line);
    size_t index;
    std::string verdict;
    double ms;
    if (is >> index >> verdict >> ms && verdict == "ok" &&
        index < retimed.size()) {
      retimed[index].medianMs = ms;
      ++got;
    }
  }
  if (end.kind != WorkerEnd::Exited || got != finalists.size()) {
    notes.push_back(
        "interleaved re-timing failed (" +
        (end.detail.empty() ? std::string("incomplete") : end.detail) +
        "); keeping the first medians");
    return first;
  }
  // Only the finalists compete in the end: the others keep no time, so a
  // candidate timed once cannot beat a re-timed finalist by noise.
  for (Measurement &m : retimed)
    if (std::find(finalists.begin(), finalists.end(), m.candidate) ==
        finalists.end())
      m.medianMs.reset();
  return retimed;
}

bool probeGpu(std::string &driverVersion, std::string &arch,
              std::string &error, std::string *cublasLtVersion) {
  std::vector<std::string> lines;
  WorkerEnd end = runWorker(
      [](const Emit &emit) {
        runWorkerBody("probe", "", {}, emit, [&] { probeBody(emit); });
      },
      60, lines);
  for (const std::string &line : lines) {
    if (line.rfind("gpu ", 0) == 0) {
      std::istringstream is(line.substr(4));
      std::string lt;
      is >> driverVersion >> arch >> lt;
      if (cublasLtVersion)
        *cublasLtVersion = lt.empty() ? "none" : lt;
      return true;
    }
    if (line.rfind("error ", 0) == 0) {
      error = line.substr(6);
      return false;
    }
  }
  error = "the GPU probe worker " +
          (end.detail.empty() ? std::string("gave no answer") : end.detail);
  return false;
}

} // namespace kiln::autotune
