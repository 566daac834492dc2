//===- GpuMeasure.cpp - Timing tuning candidates on the GPU ---------------===//
#include "autotune/GpuMeasure.h"

#include "Cuda.h"
#include "kiln/kiln.h"

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <unistd.h>

namespace kiln::autotune {
namespace {

namespace cu = kiln::rt::cuda;

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
          (!host.empty() && !ok(d_->cuMemcpyHtoD(p, host.data(), host.size()),
                                "cuMemcpyHtoD", error)))
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
    kernel_ = &k;
    return true;
  }

  bool launch(std::string &error) {
    const GpuKernel &k = *kernel_;
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
      if (bytes &&
          !ok(d_->cuMemcpyHtoD(ptrs_[firstOut + o], outs[o].data(), bytes),
              "cuMemcpyHtoD", error))
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

private:
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
  }

  const GpuJob *job_ = nullptr;
  const cu::Driver *d_ = nullptr;
  CUcontext ctx_ = nullptr;
  CUstream stream_ = nullptr;
  CUmodule module_ = nullptr;
  CUfunction fn_ = nullptr;
  const GpuKernel *kernel_ = nullptr;
  CUdeviceptr flush_ = 0;
  std::vector<CUdeviceptr> ptrs_;
  std::vector<CUtensorMap> maps_; ///< the loaded candidate's tensor maps
  std::vector<void *> params_;    ///< its kernel parameters
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

} // namespace

std::vector<Measurement> measureOnGpu(const GpuJob &job,
                                      std::vector<std::string> &notes) {
  std::vector<Measurement> first = measureInWorkers(
      job.candidates.size(),
      [&](const std::vector<size_t> &todo, const Emit &emit) {
        checkAndTime(job, todo, emit);
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
      [&](const Emit &emit) { retimeInterleaved(job, finalists, emit); },
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
              std::string &error) {
  std::vector<std::string> lines;
  WorkerEnd end = runWorker(
      [](const Emit &emit) {
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
        d->cuDeviceGetAttribute(
            &major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
        d->cuDeviceGetAttribute(
            &minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
        emit("gpu " + std::to_string(d->version) + " sm_" +
             std::to_string(major) + std::to_string(minor));
      },
      60, lines);
  for (const std::string &line : lines) {
    if (line.rfind("gpu ", 0) == 0) {
      std::istringstream is(line.substr(4));
      is >> driverVersion >> arch;
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
