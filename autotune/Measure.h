//===- Measure.h - Inputs, checks, budget and workers for tuning -*- C++
//-*-===//
//
// The GPU-free half of measuring candidates: deterministic random inputs per
// dtype, the comparison of a candidate's output with the reference, the
// --tune-budget clock, and worker processes (fork) that run measurements so
// that a candidate which faults or hangs costs only itself. Plain C++ and
// POSIX; the device half is autotune/GpuMeasure.h.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_AUTOTUNE_MEASURE_H
#define KILN_AUTOTUNE_MEASURE_H

#include "autotune/SearchSpace.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace kiln::autotune {

/// Bytes per element of a dtype name ("f16", "i1", "ui32", ...); 0 if unknown.
unsigned dtypeSize(const std::string &dtype);
bool isFloatDtype(const std::string &dtype);

/// One buffer to allocate: dtype name, element count and, for integer
/// inputs, the half-open range values are drawn from (gather indices:
/// [0, dim); other integers default to the small non-zero [1, 8)).
struct BufferDesc {
  std::string dtype;
  int64_t elements = 0;
  int64_t intLo = 1, intHi = 8;
};

/// `desc`'s bytes filled from `seed`: floats uniform in +-[1/16, 1] (never
/// zero, NaN or inf), integers uniform in [intLo, intHi), booleans 0 or 1.
/// Empty with `error` for an unknown dtype or an empty integer range.
bool fillInput(const BufferDesc &desc, uint64_t seed, std::vector<char> &out,
               std::string &error);

/// The relative tolerance for outputs of `dtype`: 1e-2 for f16/bf16, 1e-4 for
/// f32, 1e-8 for f64, 0 (bitwise) for integers and booleans.
double outputTolerance(const std::string &dtype);

/// Whether `got` matches `ref` (both `dtype` data): integers bitwise; floats
/// within outputTolerance(dtype) * max|ref| per element (a NaN or inf must
/// be the same in both). On a mismatch `why` names the first bad element.
bool outputsMatch(const std::string &dtype, const std::vector<char> &ref,
                  const std::vector<char> &got, std::string &why);

/// --tune-budget: seconds of measuring, 0 for no limit. The clock is
/// injectable so tests need not sleep.
class TuneBudget {
public:
  using Clock = std::function<double()>; ///< seconds, monotonic
  explicit TuneBudget(double seconds, Clock clock = steadySeconds);
  bool limited() const { return seconds_ > 0; }
  double elapsed() const { return clock_() - start_; }
  /// True once the budget is used up (never for an unlimited one).
  bool exceeded() const { return limited() && elapsed() >= seconds_; }
  static double steadySeconds();

private:
  double seconds_;
  Clock clock_;
  double start_;
};

/// Inside a worker's body (runWorker's child): the pipe its lines go to, so
/// a body may exec another program that writes them to stdout; -1 outside
/// a worker.
int workerOutputFd();

/// How a worker ended.
struct WorkerEnd {
  enum Kind { Exited, Crashed, TimedOut, ForkFailed } kind = Exited;
  int code = 0;       ///< exit status, or the signal that ended it
  std::string detail; ///< "killed by signal 11 (Segmentation fault)", ...
};

/// Runs `body` in a forked child. The child reports lines through `emit`
/// (each arrives in `lines`, in order); when no line arrives for
/// `timeoutSeconds` the child is killed (SIGKILL) and the end is TimedOut.
/// The child never returns into the caller: it _exits after `body`.
WorkerEnd
runWorker(const std::function<
              void(const std::function<void(const std::string &)> &emit)> &body,
          double timeoutSeconds, std::vector<std::string> &lines);

/// Measures candidates in worker processes. `body` runs in the child with
/// the candidates still to do (ascending; the reference, candidate 0, is
/// always first) and emits one line per candidate: "<index> ok <ms>" or
/// "<index> fail <why>", and "bye" as its last line when it stops on
/// purpose with candidates left (a new worker takes them). A candidate in
/// flight when its worker crashes or times out is dropped (with the reason) and
/// a new worker takes the rest; if the reference is lost so is every candidate.
/// `notes` gets one line per candidate that failed.
using WorkerBody =
    std::function<void(const std::vector<size_t> &todo,
                       const std::function<void(const std::string &)> &emit)>;
std::vector<Measurement> measureInWorkers(size_t candidates,
                                          const WorkerBody &body,
                                          double timeoutSeconds,
                                          std::vector<std::string> &notes);

} // namespace kiln::autotune

#endif // KILN_AUTOTUNE_MEASURE_H
