//===- GpuMeasure.h - Timing tuning candidates on the GPU -------*- C++ -*-===//
//
// The device half of measuring: each candidate is a compiled kernel (cubin,
// entry, geometry) over the same buffers. Worker processes (Measure.h) load
// them through the runtime's device layer, run candidate 0 (the heuristic's
// config) as the reference, check every other candidate's outputs against
// it, time the passing ones with CUDA events after an L2 flush (median of
// `runs` after `warmup`), and re-time the best three interleaved. The calling
// process never initializes CUDA (a forked child could not use it then).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_AUTOTUNE_GPUMEASURE_H
#define KILN_AUTOTUNE_GPUMEASURE_H

#include "autotune/Measure.h"
#include "autotune/TensorMap.h"
#include "kiln/engine_writer.h"

#include <array>
#include <string>
#include <vector>

namespace kiln::autotune {

/// One compiled candidate. The entry takes one pointer per buffer, inputs
/// first, then its tensor maps (TMA descriptors over those buffers), then,
/// where `workspaceBytes` is set, a zeroed kernel workspace of its own
/// (codegen's launchWorkspaceBytes). Or a library call over those buffers
/// (`hasLibrary`: no image, no entry).
struct GpuKernel {
  bool hasLibrary = false;
  /// A cuBLASLt call; its operands index the buffers, inputs first.
  engine::LibraryCallSpec library;
  std::vector<TensorMapArg> tensorMaps;
  std::vector<char> image; ///< cubin (or PTX text, NUL-terminated)
  std::string entry;
  std::array<unsigned, 3> grid{1, 1, 1}, block{1, 1, 1};
  unsigned smem = 0; ///< dynamic shared memory bytes
  uint64_t workspaceBytes = 0;
};

struct GpuJob {
  std::vector<BufferDesc> inputs, outputs;
  std::vector<GpuKernel> candidates; ///< [0] is the reference
  int warmup = 3, runs = 20;
  /// Seconds a worker may go without an answer before it is killed.
  double timeoutSeconds = 30;
  uint64_t seed = 1;
};

/// The measured medians (chooseWinner's input); a candidate that failed to
/// load, faulted, hung or disagreed with the reference has none, with a line
/// in `notes`.
std::vector<Measurement> measureOnGpu(const GpuJob &job,
                                      std::vector<std::string> &notes);

/// Asks a worker for the GPU: driver version ("13000") and device 0's arch
/// ("sm_90"), and where asked, the cuBLASLt version ("130100") or "none"
/// when the library does not load. False with `error` when there is no
/// usable driver or device.
bool probeGpu(std::string &driverVersion, std::string &arch,
              std::string &error, std::string *cublasLtVersion = nullptr);

/// Makes every GPU worker a fresh process: the forked child execs
/// `executable --kiln-gpu-worker ...` (which must call gpuWorkerMain), so no
/// CUDA state of this process (a cuInit by anything linked in, which leaves
/// a forked child's cuInit failing with CUDA_ERROR_NOT_INITIALIZED) reaches
/// the measurement. Empty (the default): workers run in the forked child.
void setGpuWorkerExecutable(const std::string &executable);

/// An exec'd worker's job file: the bytes of `job`, and back (false for
/// anything that is not exactly one job).
std::vector<char> encodeGpuJob(const GpuJob &job);
bool decodeGpuJob(const std::vector<char> &bytes, GpuJob &job);

/// The entry of an exec'd worker: argv[1] is "--kiln-gpu-worker", then the
/// mode ("check", "retime" or "probe"), the job file and candidate indices.
/// Writes the worker's lines to stdout; returns the exit status.
int gpuWorkerMain(int argc, char **argv);

} // namespace kiln::autotune

#endif // KILN_AUTOTUNE_GPUMEASURE_H
