//===- NvrtcCompiler.h - CUDA C++ to cubin and PTX through NVRTC -*- C++
//-*-===//
//
// NVRTC is opened at run time (dlopen "libnvrtc.so.13", then "libnvrtc.so",
// then the toolkit's lib64 under $CUDA_HOME and /usr/local/cuda), so the
// compiler starts and reports a clear error on machines without it. Kernels
// compile in parallel on a bounded thread pool; results are cached in memory
// by a hash of source, options and NVRTC version, so identical kernels of a
// model (and of later compiles in the same process) compile once.
//
// No MLIR here: this library is usable by autotuning and tests on its own.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_NVRTC_NVRTCCOMPILER_H
#define KILN_COMPILER_NVRTC_NVRTCCOMPILER_H

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::nvrtc {

/// One kernel image: what the engine writer stores (cubin + PTX) and what
/// messages name.
struct CompiledKernel {
  std::string name;   // for messages: the first launch that uses it
  std::string entry;  // the extern "C" __global__ symbol
  std::string source; // the CUDA C++ it was compiled from
  std::string ptx;    // NUL-free PTX text
  std::vector<char> cubin;
  std::string arch; // the request's own architecture; empty: the options'
};

/// A kernel to compile.
struct KernelRequest {
  std::string name, entry, source;
  /// The architecture for this kernel; empty: CompileOptions::arch. (A
  /// kernel using arch-specific instructions, such as wgmma, compiles for
  /// "sm_90a" within an sm_90 model.)
  std::string arch;
};

struct CompileOptions {
  /// The virtual/real architecture: "sm_90" (cubin for H100/H200),
  /// "sm_90a" (needed for wgmma), "sm_80", ...
  std::string arch = "sm_90";
  /// Extra NVRTC options, appended after Kiln's own.
  std::vector<std::string> extraOptions;
  /// Emit line info into the PTX/cubin (for profilers).
  bool lineInfo = false;
  /// Parallel compiles; 0: std::thread::hardware_concurrency().
  unsigned jobs = 0;
};

/// Loads NVRTC once per process. Fails with a message saying what was tried.
bool loadNvrtc(std::string &error);
/// "13.0" once loaded; empty if NVRTC is unavailable.
std::string nvrtcVersion();
/// The CUDA include directory given to NVRTC (-I), from $CUDA_HOME,
/// $CUDA_PATH or /usr/local/cuda, or empty when none has cuda_fp16.h.
/// Kiln's kernel library needs no toolkit header; templates may use them.
const std::string &cudaIncludeDir();
/// The full NVRTC option list for `options`.
std::vector<std::string> nvrtcOptions(const CompileOptions &options);

/// Compiles every request (in parallel, each at most once per distinct
/// source and options) into `out`, in request order. On failure `error`
/// names every kernel that failed with its NVRTC log, and `out` is cleared.
bool compileKernels(const std::vector<KernelRequest> &requests,
                    const CompileOptions &options,
                    std::vector<CompiledKernel> &out, std::string &error);

/// The ptxas line of `log` (an NVRTC program log) saying that a kernel's
/// wgmma pipeline was made synchronous (warnings C7510-C7519: serialized
/// wgmma instructions, an injected warpgroup wait), or "" when there is
/// none. compileKernels refuses such a kernel with that line.
std::string wgmmaStallDiagnostic(const std::string &log);

/// Marks the calling thread as compiling kernel `name` with NVRTC for its
/// lifetime (compileKernels holds one around each nvrtcCompileProgram), so
/// that a crash inside NVRTC, a front-end fault on a kernel Kiln generated,
/// can be reported with the kernel's name (writeCrashNote). `name` must
/// outlive it.
class CompilingKernel {
public:
  explicit CompilingKernel(const char *name);
  ~CompilingKernel();
  CompilingKernel(const CompilingKernel &) = delete;
  CompilingKernel &operator=(const CompilingKernel &) = delete;

private:
  const char *previous;
};
/// Where the calling thread is inside a CompilingKernel, writes "TOOL:
/// error: NVRTC crashed while compiling kernel 'NAME' ..." (one line) to
/// `fd` and returns true; else writes nothing. Async-signal-safe (write(2)
/// of a thread-local name): for a crash signal handler, which runs on the
/// faulting thread.
bool writeCrashNote(int fd, const char *tool);

/// Drops every cached result (tests).
void clearCompileCache();
/// Number of NVRTC compilations run so far in this process (tests).
uint64_t compileCount();

} // namespace kiln::nvrtc

#endif // KILN_COMPILER_NVRTC_NVRTCCOMPILER_H
